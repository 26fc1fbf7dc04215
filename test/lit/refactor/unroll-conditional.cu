// An unroll count chosen by a condition (`#pragma unroll cond ? 4 : 128`,
// as mixbench writes it) holds two counts: each literal is a count of its
// own. Taking them for one factor rewrote both as one parameter of the
// first value and changed the other instantiation's code. Two pragmas'
// counts spelled as expressions (`2 * N`, `4 * N`) are two factors too:
// keyed by nothing, they were one candidate and the 4 was rewritten as 2.
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | FileCheck %s --check-prefix=CAND
// RUN: ktune-refactor %s -o %t/out.cu --verify 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL

template <bool Temperate, int N>
__global__ void mad_loop(float *x, float s) {
  float t = x[threadIdx.x];
  #pragma unroll Temperate ? 4 : 128
  for (int i = 0; i < N; i++)
    t = t * t + s;
  x[threadIdx.x] = t;
}

template <int N>
__global__ void two_counts(float *x, float s) {
  float t = x[threadIdx.x];
  #pragma unroll 2 * N
  for (int i = 0; i < 64; i++)
    t = t * t + s;
  #pragma unroll 4 * N
  for (int i = 0; i < 64; i++)
    t = t + s;
  x[threadIdx.x] = t;
}

void launch(float *x) {
  mad_loop<true, 512><<<1, 256>>>(x, 1.f);
  mad_loop<false, 512><<<1, 256>>>(x, 1.f);
  two_counts<2><<<1, 256>>>(x, 1.f);
}

// CAND:      "kind": "unroll",
// CAND:      "text": "4"
// CAND:      "value": 4,
// CAND:      "kind": "unroll",
// CAND:      "text": "128"
// CAND:      "value": 128,
// CAND:      "kernel": "two_counts",
// CAND-NEXT: "kind": "unroll",
// CAND:      "text": "2"
// CAND:      "value": 2,
// CAND:      "kernel": "two_counts",
// CAND-NEXT: "kind": "unroll",
// CAND:      "text": "4"
// CAND:      "value": 4,
// VERIFY: note: self-check: 3 function(s) PTX-identical at the defaults
// TPL: template <bool Temperate, int N, int UNROLL = 4, int UNROLL_2 = 128>
// TPL: #pragma unroll Temperate ? UNROLL : UNROLL_2
// TPL: template <int N, int UNROLL = 2, int UNROLL_2 = 4>
// TPL: #pragma unroll UNROLL * N
// TPL: #pragma unroll UNROLL_2 * N
