// std::min / std::max around the block: the bound is the knob.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %inputs/refactor/summarize.py < %t/out.json | FileCheck %s --check-prefix=MANIFEST

#include <algorithm>

__global__ void rows_kernel(float *x, int d) {
  for (int i = threadIdx.x; i < d; i += blockDim.x)
    x[blockIdx.x * d + i] *= 0.5f;
}

void launch(float *x, int rows, int d) {
  // The block is the row length, capped: 1024 is the knob.
  dim3 block(std::min(d, 1024));
  rows_kernel<<<rows, block>>>(x, d);
  // max(..., 64) is a floor on the block.
  rows_kernel<<<rows, std::max(d / 4, 64)>>>(x, d);
}

// The kernel reads blockDim: both bounds are launch parameters of launch(),
// the kernel stays as it is.
// CAND:      CAND block_size rows_kernel value=1024 spelling=1024 high launch-param
// CAND-NEXT:   SITE 19:26 launch_block '1024' -> {P}
// CAND-NEXT:   IMPLIES {block_size#0} <= 1024
// CAND-NEXT: CAND block_size rows_kernel value=64 spelling=64 high launch-param
// CAND-NEXT:   SITE 22:39 launch_block '64' -> {P}
// CAND-NEXT:   IMPLIES {block_size#1} <= 1024

// TPL:        __global__ void rows_kernel(float *x, int d) {
// TPL:        template <int BLOCK_SIZE = 1024, int BLOCK_SIZE_2 = 64>
// TPL-NEXT:   void launch(float *x, int rows, int d) {
// TPL:        dim3 block(std::min(d, BLOCK_SIZE));
// TPL-NEXT:   rows_kernel<<<rows, block>>>(x, d);
// TPL:        rows_kernel<<<rows, std::max(d / 4, BLOCK_SIZE_2)>>>(x, d);

// `rows` is the launcher's parameter: the geometry names it.
// MANIFEST:      KERNEL rows_kernel
// MANIFEST-NEXT:   LAUNCH-PARAM BLOCK_SIZE int block_size default=1024 launcher=launch
// MANIFEST-NEXT:   LAUNCH-PARAM BLOCK_SIZE_2 int block_size default=64 launcher=launch
// MANIFEST:        LAUNCH grid=['rows'] block=['min(d, BLOCK_SIZE)'] smem=0
// MANIFEST:      LAUNCHER launch returns=void kernels=['rows_kernel'] forwarder
