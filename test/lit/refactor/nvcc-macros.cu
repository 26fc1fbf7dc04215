// Projects test nvcc's own macros: `#ifdef __NVCC__` picks the CUDA side of
// a CUDA/HIP header, `__CUDACC_VER_MAJOR__` a toolkit's feature. Clang
// parses with them defined as nvcc defines them (the toolkit's version),
// while CCCL (cub here) goes on taking the compiler for Clang.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s -o %t/out.cu --verify 2> %t/stderr.txt
// RUN: FileCheck %s --check-prefix=NOTE < %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL

#include <cub/block/block_reduce.cuh>

#ifdef __NVCC__
#define GPU_CHECK(call) check_cuda((call), __FILE__, __LINE__)
inline void check_cuda(cudaError_t e, const char *file, int line) {
  if (e != cudaSuccess)
    throw line;
}
#else
#error "this header is for nvcc or hipcc only"
#endif

#if __CUDACC_VER_MAJOR__ >= 12
#define THREADS 256
#else
#define THREADS 128
#endif

__global__ void block_sums(const float *in, float *out) {
  using Reduce = cub::BlockReduce<float, THREADS>;
  __shared__ typename Reduce::TempStorage tmp;
  float s = Reduce(tmp).Sum(in[blockIdx.x * THREADS + threadIdx.x]);
  if (threadIdx.x == 0)
    out[blockIdx.x] = s;
}

void sums(const float *in, float *out, int blocks) {
  block_sums<<<blocks, THREADS>>>(in, out);
  GPU_CHECK(cudaGetLastError());
}

// NOTE-NOT: error
// NOTE: PTX-identical at the defaults
// NOTE: wrote {{.*}}out.cu and {{.*}}out.json: 1 parameter in 1 kernel

// TPL:      template <int BLOCK_SIZE = 256>
// TPL-NEXT: __global__ void block_sums(const float *in, float *out) {
// TPL:        using Reduce = cub::BlockReduce<float, BLOCK_SIZE>;
