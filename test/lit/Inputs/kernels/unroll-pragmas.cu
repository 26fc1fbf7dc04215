// #pragma unroll with a count, without one, through a named constant and
// with count 1: one kernel read by both ktune-refactor and the clang-tidy
// module (refactor/pragma-unroll.cu, tidy/unroll-factor.cu).

constexpr int kUnrollInner = 8;

__global__ void unrolled(float *x) {
  float acc = 0.0f;
#pragma unroll 4
  for (int i = 0; i < 64; ++i)
    acc += x[i];
  // No count: left alone.
#pragma unroll
  for (int i = 0; i < 8; ++i)
    acc *= x[i];
  // Through a constant (nvcc does not expand macros in this pragma).
#pragma unroll kUnrollInner
  for (int i = 0; i < 32; ++i)
    acc -= x[i];
  // unroll 1 (no unrolling) is a count too small to be a knob.
#pragma unroll 1
  for (int i = 0; i < 16; ++i)
    acc += 1.0f;
  x[0] = acc;
}

void launch_unrolled(float *x) { unrolled<<<1, 1>>>(x); }
