// A launch spelled in a function-like macro's body (vLLM's
// LAUNCH_ACTIVATION_GATE_KERNEL shape): a constant spelled in the body of a
// macro the main file defines is lifted (macro-body-constants.cu has the
// rules); one spelled in a macro of a header is shared with every file
// including it, so it is not lifted, and a note names it, the launch and the
// macro. (launch-macro-arguments.cu: what can be lifted through arguments.)
// REQUIRES: clang
// RUN: rm -rf %t && split-file %s %t
// RUN: ktune-refactor %t/main.cu --candidates -- 2> %t/cand.err | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: FileCheck %s --check-prefix=NOTE < %t/cand.err
// RUN: ktune-refactor %t/main.cu -o %t/out.cu -- 2> %t/out.err
// RUN: grep -v -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL

// CAND:      CAND block_size copy_rows value=1024 spelling=1024 high launch-param
// CAND-NEXT:   SITE 10:26 launch_block '1024' -> {P}
// CAND-NOT:  scale_rows

// NOTE: launch_macro.h:3:26: the launch of scale_rows on line 24 uses 512, spelled in the body of macro LAUNCH_SCALE: not lifted (every expansion shares it); pass it as a macro argument to tune it

// TPL:      dim3 block(std::min(D, BLOCK_SIZE));
// TPL:      template <int BLOCK_SIZE = 1024>
// TPL-NEXT: void copy(float *out, const float *in, int d, int rows, cudaStream_t s) {
// TPL:      void scale(float *out, int d, int rows, cudaStream_t s) {
// TPL-NEXT:   LAUNCH_SCALE(d);

//--- launch_macro.h
#define LAUNCH_SCALE(D)                                                        \
  dim3 grid(rows);                                                             \
  dim3 block(std::min(D, 512));                                                \
  scale_rows<<<grid, block, 0, s>>>(out, D);

//--- main.cu
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

__global__ void scale_rows(float *out, int d) {
  for (int i = threadIdx.x; i < d; i += blockDim.x)
    out[blockIdx.x * d + i] *= 2.0f;
}

#include "launch_macro.h"
void scale(float *out, int d, int rows, cudaStream_t s) {
  LAUNCH_SCALE(d);
}
