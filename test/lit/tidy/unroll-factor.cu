// ktune-unroll-factor: #pragma unroll N becomes #pragma unroll NAME; a named
// constant is rewritten at the pragma; a pragma without a count, or with
// count 1, is not a knob.
// REQUIRES: clang-tidy, cuda-headers
// RUN: %check_ktune_tidy %s ktune-unroll-factor %t

constexpr int kUnrollInner = 8;

__global__ void unrolled(float *x) {
  float acc = 0.0f;
#pragma unroll 4
  for (int i = 0; i < 64; ++i)
    acc += x[i];
#pragma unroll
  for (int i = 0; i < 8; ++i)
    acc *= x[i];
#pragma unroll kUnrollInner
  for (int i = 0; i < 32; ++i)
    acc -= x[i];
#pragma unroll 1
  for (int i = 0; i < 16; ++i)
    acc += 1.0f;
  x[0] = acc;
}

void launch_unrolled(float *x) { unrolled<<<1, 1>>>(x); }

// Two knobs of one kernel: both extend its template parameter list, so one
// fix lifts both (applying them one by one would collide).
// CHECK-MESSAGES: .cu:11:16: warning: hardcoded unroll factor 4 in kernel 'unrolled' (1 site); lift it to a template parameter [ktune-unroll-factor]
// CHECK-MESSAGES: .cu:11:16: note: fix lifts it to template parameter 'UNROLL' = 4, together with 'UNROLL_2'
// CHECK-MESSAGES: .cu:17:16: warning: hardcoded unroll factor 8 in kernel 'unrolled' (1 site); lift it to a template parameter [ktune-unroll-factor]
// CHECK-MESSAGES: .cu:17:16: note: the fix for 'UNROLL' also lifts this one to template parameter 'UNROLL_2' = 8 (the parameters of one kernel are added together)
// CHECK-FIXES: constexpr int kUnrollInner = 8;
// CHECK-FIXES: template <int UNROLL = 4, int UNROLL_2 = 8>
// CHECK-FIXES: #pragma unroll UNROLL
// CHECK-FIXES: #pragma unroll{{$}}
// CHECK-FIXES: #pragma unroll UNROLL_2
// CHECK-FIXES: #pragma unroll 1
// CHECK-FIXES: unrolled<UNROLL, UNROLL_2><<<1, 1>>>(x);
