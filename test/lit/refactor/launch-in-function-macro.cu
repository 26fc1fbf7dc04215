// A launch spelled in a function-like macro's body (vLLM's
// LAUNCH_ACTIVATION_GATE_KERNEL shape) is one spelling for every expansion:
// nothing in it is lifted, and a note names the launch and the macro. The
// template is the original, unchanged.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates 2> %t/cand.err | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=NOTE < %t/cand.err
// RUN: not grep CAND %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/out.err
// RUN: FileCheck %s --check-prefix=NOTE < %t/out.err
// RUN: diff %s %t/out.cu

#include <algorithm>

__global__ void copy_rows(float *out, const float *in, int d) {
  for (int i = threadIdx.x; i < d; i += blockDim.x)
    out[blockIdx.x * d + i] = in[blockIdx.x * d + i];
}

#define LAUNCH_COPY(D)                                                         \
  dim3 grid(rows);                                                             \
  dim3 block(std::min(D, 1024));                                               \
  copy_rows<<<grid, block, 0, s>>>(out, in, D);

void copy(float *out, const float *in, int d, int rows, cudaStream_t s) {
  LAUNCH_COPY(d);
}

// NOTE: launch-in-function-macro.cu:27:3: launch of copy_rows inside function-like macro LAUNCH_COPY: its block size and other constants are not lifted (they would need a macro parameter)
