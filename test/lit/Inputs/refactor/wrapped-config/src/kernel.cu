// Kernels launched with constants from config.h, which this file reaches
// only through wrapper.h.
#include "wrapper.h"

#ifdef USE_WIDE
#define STRIDE_ITEMS (ITEMS * 2)
#else
#define STRIDE_ITEMS ITEMS
#endif

__global__ void transpose(float *out, const float *in, int n) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS_PER_BLOCK)
    if (x < n && y + j < n)
      tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS_PER_BLOCK)
    if (x < n && y + j < n)
      out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void __launch_bounds__(BLOCK, MIN_BLOCKS)
sum_items(float *out, const float *in, int n) {
  int first = (blockIdx.x * BLOCK + threadIdx.x) * STRIDE_ITEMS;
  float acc = 0.0f;
#pragma unroll ITEMS
  for (int k = 0; k < ITEMS; ++k)
    if (first + k < n)
      acc += in[first + k];
  out[blockIdx.x * BLOCK + threadIdx.x] = acc;
}

void run(float *out, const float *in, float *x, int n) {
  dim3 grid((n + TILE - 1) / TILE, (n + TILE - 1) / TILE);
  dim3 block(TILE, ROWS_PER_BLOCK);
  transpose<<<grid, block>>>(out, in, n);
  int per_block = BLOCK * ITEMS;
  sum_items<<<(n + per_block - 1) / per_block, BLOCK>>>(out, in, n);
#if defined(__HIP__)
  hipLaunchKernelGGL(scale, dim3((n + BLOCK * VEC - 1) / (BLOCK * VEC)), dim3(BLOCK), 0, 0, x, 2.0f, n);
#else
  scale<<<(n + BLOCK * VEC - 1) / (BLOCK * VEC), BLOCK>>>(x, 2.0f, n);
#endif
}
