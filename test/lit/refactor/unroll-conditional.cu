// An unroll count chosen by a condition (`#pragma unroll cond ? 4 : 128`,
// as mixbench writes it) holds two counts: each literal is a count of its
// own. Taking them for one factor rewrote both as one parameter of the
// first value and changed the other instantiation's code.
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

void launch(float *x) {
  mad_loop<true, 512><<<1, 256>>>(x, 1.f);
  mad_loop<false, 512><<<1, 256>>>(x, 1.f);
}

// CAND:      "kind": "unroll",
// CAND:      "text": "4"
// CAND:      "value": 4,
// CAND:      "kind": "unroll",
// CAND:      "text": "128"
// CAND:      "value": 128,
// VERIFY: note: self-check: 2 function(s) PTX-identical at the defaults
// TPL: template <bool Temperate, int N, int UNROLL = 4, int UNROLL_2 = 128>
// TPL: #pragma unroll Temperate ? UNROLL : UNROLL_2
