// A launch spelled in a function-like macro's body (vLLM's
// LAUNCH_ACTIVATION_GATE_KERNEL shape): a constant spelled in the body of a
// macro the main file defines is lifted (macro-body-constants.cu has the
// rules); one spelled in a macro of a header is shared with every file
// including it, so the header keeps it and the output redefines the macro
// after the header's #include, before the function expanding it
// (launch-macro-header-body.test has the rules). (launch-macro-arguments.cu:
// what can be lifted through arguments.)
// REQUIRES: clang
// RUN: rm -rf %t && split-file %s %t
// RUN: ktune-refactor %t/main.cu --candidates -- 2> %t/cand.err | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: FileCheck %s --allow-empty --check-prefix=NOTE < %t/cand.err
// RUN: ktune-refactor %t/main.cu -o %t/out.cu -- 2> %t/out.err
// RUN: grep -v -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL

// CAND:      CAND block_size copy_rows value=1024 spelling=1024 high launch-param
// CAND-NEXT:   SITE 10:26 launch_block '1024' -> {P}
// CAND:      CAND block_size scale_rows value=512 spelling=512 high launch-param
// CAND-NEXT:   SITE {{.*}}launch_macro.h:3:26 launch_block '512' -> {P}

// NOTE-NOT: not lifted

// TPL:      dim3 block(std::min(D, BLOCK_SIZE));
// TPL:      template <int BLOCK_SIZE = 1024>
// TPL-NEXT: void copy(float *out, const float *in, int d, int rows, cudaStream_t s) {
// TPL:      #include "launch_macro.h"
// TPL-NEXT: #undef LAUNCH_SCALE // redefined with ktune's parameters
// TPL-NEXT: #define LAUNCH_SCALE(D)
// TPL-NEXT:   dim3 grid(rows);
// TPL-NEXT:   dim3 block(std::min(D, BLOCK_SIZE));
// TPL-NEXT:   scale_rows<<<grid, block, 0, s>>>(out, D);
// TPL-NEXT: template <int BLOCK_SIZE = 512>
// TPL-NEXT: void scale(float *out, int d, int rows, cudaStream_t s) {
// TPL:        LAUNCH_SCALE(d);
// TPL:      return scale<512>(out, d, rows, s);

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
