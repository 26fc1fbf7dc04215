// A literal that is only a factor of a launch's template argument
// (`stage1<2 * K, ...>`) is not the kernel's parameter: the kernel's own
// `2 * K + 2` keeps its literals (it was rewritten as `K * K + K`, which
// overflowed shared memory), and the factor is no tile. A ternary that is
// the whole argument gives each branch as that argument: both block sizes
// become parameters of the launcher.
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | FileCheck %s --check-prefix=CAND
// RUN: ktune-refactor %s -o %t/out.cu 2>&1 | FileCheck %s
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX

#define SMALL_K_BLOCK 256

template <int K, int BLOCK>
__global__ void __launch_bounds__(BLOCK) stage1(float *out, const float *in, int n) {
  __shared__ float packed[2 * K + 2];
  for (int i = threadIdx.x; i < 2 * K + 2; i += BLOCK)
    packed[i] = in[blockIdx.x * n + i];
  __syncthreads();
  if (threadIdx.x == 0)
    out[blockIdx.x] = packed[2 * K] + packed[2 * K + 1];
}

template <int K> void topk(float *out, const float *in, int rows, int n) {
  const int block = K < 8 ? SMALL_K_BLOCK : 64;
  stage1<2 * K, block><<<rows, block>>>(out, in, n);
}

template void topk<4>(float *, const float *, int, int);
template void topk<16>(float *, const float *, int, int);

// CAND:      "confidence": "low",
// CAND-NOT:  "role": "template_arg"
// CAND:      "spelling": "2",
// CAND-NEXT: "value": 2,
// CAND-NEXT: "why": "literal 2 used as __shared__ array extent at line 18; the value 2 also
// CAND:      "text": "SMALL_K_BLOCK"
// CAND:      "why": "macro SMALL_K_BLOCK used as template argument at a launch at line 27, the kernel's template parameter BLOCK"
// CHECK: wrote {{.*}}out.cu {{.*}}: 1 parameter in 1 kernel
// TPL: __shared__ float packed[2 * K + 2];
// TPL: template <int K, int BLOCK_SIZE = 256, int BLOCK_SIZE_2 = 64> void topk(
// TPL-NEXT: const int block = K < 8 ? BLOCK_SIZE : BLOCK_SIZE_2;
// TPL-NEXT: stage1<2 * K, block><<<rows, block>>>(out, in, n);
// PTX: ptx-identical: 2 function(s) identical
