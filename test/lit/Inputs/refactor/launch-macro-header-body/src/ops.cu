#include "launch.h"

__global__ void scale_kernel(float *x, int n, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

__global__ void shift_kernel(float *x, int n, float b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += b;
}

void scale(float *x, int n, float a) { launch_device(scale_kernel, n, (x, n, a)); }

void shift(float *x, int n, float b) {
  launch_device(shift_kernel, n, (x, n, b));
  launch_device(scale_kernel, n, (x, n, 2.0f));
  fill(x, n, 0.0f);
}
