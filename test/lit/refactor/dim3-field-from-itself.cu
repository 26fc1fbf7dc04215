// A block field computed from its own earlier value (`block.x = block.x /
// (4 / sizeof(T));` after `dim3 block(min(n, 1024)); if (n % 32 != 0)
// block.x = 1024;`, a T5 layer norm's launcher): the earlier value stands
// where the field is read, so both caps are block-size sites of one knob
// and the launch's block is the whole chain. A field read with another
// (`block.x = block.y * 2`) is not followed.
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: %python %inputs/refactor/summarize.py < %t/out.json | FileCheck %s --check-prefix=MANIFEST
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX
#include <cuda_fp16.h>

template <typename T>
__global__ void norm(T *out, const T *in, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    out[blockIdx.x * n + i] = in[blockIdx.x * n + i];
}

template <typename T> void launch(T *out, const T *in, int m, int n) {
  dim3 grid(m);
  dim3 block(min(n, 1024));
  if (n % 32 != 0) {
    block.x = 1024;
  }
  block.x = block.x / (4 / sizeof(T));
  norm<T><<<grid, block>>>(out, in, n);
}

template <typename T> void launch_other(T *out, const T *in, int m, int n) {
  dim3 block(64, 2);
  block.x = block.y * 96;
  norm<T><<<m, block>>>(out, in, n);
}

template void launch(float *, const float *, int, int);
template void launch(half *, const half *, int, int);
template void launch_other(float *, const float *, int, int);

// CAND:      CAND block_size norm value=1024 spelling=1024 high launch-param
// CAND-NEXT:   SITE 24:21 launch_block '1024' -> {P}
// CAND-NEXT:   SITE 26:15 launch_block '1024' -> {P}
// CAND-NOT:  value=96
// MANIFEST:  LAUNCH grid=['m'] block=['(n % 32 != 0 ? BLOCK_SIZE : min(n, BLOCK_SIZE)) / (4 / sizeof(T))'] smem=0
// PTX: ptx-identical: {{[0-9]+}} function(s) identical
