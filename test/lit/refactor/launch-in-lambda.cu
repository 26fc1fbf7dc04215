// A launch inside a plain lambda (the shape AT_DISPATCH_* leaves after
// expansion, without any dispatch macro): the candidate is found, the host
// function becomes the template and the lambda sees its parameter; the old
// symbol forwards to the defaults. The kernel reads its block size from
// blockDim: the cap is a launch parameter and the kernel stays as it is.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py | FileCheck %s --check-prefix=CAND
// RUN: ktune-refactor %s -o %t/out.cu
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL

#include <algorithm>

template <typename T>
__global__ void copy_rows(T *out, const T *in, int d) {
  for (int i = threadIdx.x; i < d; i += blockDim.x)
    out[blockIdx.x * d + i] = in[blockIdx.x * d + i];
}

void copy(float *out, const float *in, int d, int rows, cudaStream_t s) {
  dim3 grid(rows);
  dim3 block(std::min(d, 512));
  auto go = [&] { copy_rows<float><<<grid, block, 0, s>>>(out, in, d); };
  go();
}

// CAND:      CAND block_size copy_rows value=512 spelling=512 high launch-param
// CAND-NEXT:   SITE 22:26 launch_block '512' -> {P}

// TPL:      template <typename T>
// TPL-NEXT: __global__ void copy_rows(T *out, const T *in, int d) {
// TPL:      template <int BLOCK_SIZE = 512>
// TPL-NEXT: void copy(float *out, const float *in, int d, int rows, cudaStream_t s) {
// TPL-NEXT:   static_assert(BLOCK_SIZE <= 1024, "ktune: BLOCK_SIZE <= 1024");
// TPL:        dim3 block(std::min(d, BLOCK_SIZE));
// TPL-NEXT:   auto go = [&] { copy_rows<float><<<grid, block, 0, s>>>(out, in, d); };
// TPL:      void copy(float *out, const float *in, int d, int rows, cudaStream_t s) {
// TPL-NEXT:   return ::copy<512>(out, in, d, rows, s);
