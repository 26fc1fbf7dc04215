// A kernel and its host launcher, both in a header (the input file of
// header-input.test), and a kernel nothing launches.
#pragma once

#include "detail.cuh"

namespace mylib {

template <typename T>
__global__ void norm_kernel(T *x, int n) {
  __shared__ float partial[128];
  float sum = 0.0f;
  for (int i = threadIdx.x; i < n; i += 128)
    sum += detail::twice(static_cast<float>(x[blockIdx.x * n + i]));
  partial[threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.0f;
    for (int i = 0; i < 128; ++i)
      total += partial[i];
    x[blockIdx.x * n] = static_cast<T>(total + __LINE__ * 0.0f);
  }
}

template <typename T>
inline void norm(T *x, int rows, int n, cudaStream_t stream) {
  norm_kernel<T><<<rows, 128, 0, stream>>>(x, n);
}

__global__ void clear_kernel(float *x) {
#pragma unroll 8
  for (int k = 0; k < 8; ++k)
    x[threadIdx.x * 8 + k] = 0.0f;
}

} // namespace mylib
