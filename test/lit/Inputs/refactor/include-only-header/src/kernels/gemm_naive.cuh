#pragma once

__global__ __launch_bounds__(1024) void gemm_naive(int n, const float *a,
                                                   const float *b, float *c) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < n && y < n) {
    float acc = 0.f;
    for (int k = 0; k < n; ++k)
      acc += a[y * n + k] * b[k * n + x];
    c[y * n + x] = acc;
  }
}
