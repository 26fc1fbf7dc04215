#pragma once
#include <cuda_fp16.h>

__global__ void to_half_kernel(half *dst, const float *src, size_t n) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x)
    dst[i] = __float2half(src[i]);
}

inline void to_half(half *dst, const float *src, size_t n) {
  dim3 block(256, 1, 1);
  dim3 grid(128, 1, 1);
  to_half_kernel<<<grid, block>>>(dst, src, n);
}
