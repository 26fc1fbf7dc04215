#include "ops_common.h"

// Grid-stride: any grid is right.
__global__ void relu_kernel(const float *x, float *y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    y[i] = x[i] > 0.f ? x[i] : 0.f;
}

// One thread per element: the grid must cover n.
__global__ void square_kernel(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] * x[i];
}

__global__ void negate_kernel(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = -x[i];
}

__global__ void halve_kernel(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = 0.5f * x[i];
}

__global__ void copy_kernel(const float *x, float *y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    y[i] = x[i];
}

void relu(const float *x, float *y, int n, cudaStream_t stream) {
  relu_kernel<<<GET_BLOCKS(n), THREADS_PER_BLOCK, 0, stream>>>(x, y, n);
}

void square(const float *x, float *y, int n, cudaStream_t stream) {
  int blocks = GET_BLOCKS(n);
  square_kernel<<<blocks, THREADS_PER_BLOCK, 0, stream>>>(x, y, n);
}

void negate(const float *x, float *y, int n) {
  negate_kernel<<<blocks_for(n), NUM_THREADS>>>(x, y, n);
}

void halve(const float *x, float *y, int n) {
  halve_kernel<<<capped_blocks(n), WIDE_THREADS>>>(x, y, n);
}

void copy(const float *x, float *y, int n) {
  copy_kernel<<<blocks_for(n), NUM_THREADS>>>(x, y, n);
}

// Caffe's grid-stride loop, written as a macro.
#define CUDA_KERNEL_LOOP(i, n) \
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)

__global__ void abs_kernel(const float *x, float *y, int n) {
  CUDA_KERNEL_LOOP(index, n) { y[index] = x[index] < 0.f ? -x[index] : x[index]; }
}

void absolute(const float *x, float *y, int n) {
  abs_kernel<<<blocks_for(n), NUM_THREADS>>>(x, y, n);
}

__global__ void rows_kernel(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] + 1.f;
}

__global__ void half_kernel(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] - 1.f;
}

__global__ void warp_kernel(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] * 2.f;
}

int count(const float *x, int n);

void add_one(const float *x, float *y, int n) {
  rows_kernel<<<row_blocks(n), ROW_THREADS>>>(x, y, n);
}

void sub_one(const float *x, float *y, int n) {
  half_kernel<<<half_blocks(count(x, n)), HALF_THREADS>>>(x, y, n);
}

void twice(const float *x, float *y, int n) {
  warp_kernel<<<warp_blocks(n), MANY_THREADS>>>(x, y, n);
}
