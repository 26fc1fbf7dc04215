// A kernel that reads blockDim and its host launcher, both in a header: the
// launcher picks the block size (a cap), so the launcher is where it is
// tuned. src/use_launch.cu calls the launcher.
#pragma once

#include <algorithm>
#include <cstdint>

namespace mylib {

template <typename T>
__global__ void fill_kernel(T *x, uint32_t n) {
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x)
    x[i] = T(1);
}

template <typename T>
inline cudaError_t fill(T *x, uint32_t n, cudaStream_t stream) {
  const uint32_t block = std::min<uint32_t>(512, n);
  fill_kernel<T><<<(n + block - 1) / block, block, 0, stream>>>(x, n);
  return cudaGetLastError();
}

// Not called from the main file: not read.
inline void unused_launcher(float *x, uint32_t n) {
  fill_kernel<float><<<1, 64>>>(x, n);
}

} // namespace mylib
