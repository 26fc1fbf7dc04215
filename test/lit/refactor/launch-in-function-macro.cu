// A launch spelled in a function-like macro's body (vLLM's
// LAUNCH_ACTIVATION_GATE_KERNEL shape) is one spelling for every expansion:
// a constant spelled in the body is not lifted, and a note names it, the
// launch and the macro. The template is the original, unchanged.
// (launch-macro-arguments.cu: what can be lifted through the macro.)
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

// NOTE: launch-in-function-macro.cu:24:26: the launch of copy_rows on line 28 uses 1024, spelled in the body of macro LAUNCH_COPY: not lifted (every expansion shares it); pass it as a macro argument to tune it
