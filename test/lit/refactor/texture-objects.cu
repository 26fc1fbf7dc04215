// Texture object fetches (tex1Dfetch<T>(cudaTextureObject_t, i), tex2D<T>)
// are declared by the toolkit's texture_indirect_functions.h, which CUDA 13
// still ships and Clang's wrapper includes by name: the toolkit's copy is
// read (share/ktune/cuda-compat only stands in for a header a toolkit
// lacks), so kernels using them are analysed.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s -o %t/out.cu --verify 2> %t/stderr.txt
// RUN: FileCheck %s --check-prefix=NOTE < %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL

#include <cuda_runtime.h>

#define THREADS 128

__global__ void gather(cudaTextureObject_t rows, cudaTextureObject_t image,
                       float *out, int n) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  if (i < n)
    out[i] = tex1Dfetch<float>(rows, i) + tex2D<float>(image, 0.5f, i + 0.5f);
}

void launch_gather(cudaTextureObject_t rows, cudaTextureObject_t image,
                   float *out, int n) {
  gather<<<(n + THREADS - 1) / THREADS, THREADS>>>(rows, image, out, n);
}

// NOTE-NOT: error
// NOTE: PTX-identical at the defaults
// NOTE: wrote {{.*}}out.cu and {{.*}}out.json: 1 parameter in 1 kernel

// TPL:      template <int BLOCK_SIZE = 128>
// TPL-NEXT: __global__ void gather(cudaTextureObject_t rows, cudaTextureObject_t image,
