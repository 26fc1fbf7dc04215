// A project's launch helper macro (the shape of Warp's wp_launch_device):
// the block size is spelled twice in its body, as a local sizing the grid
// and as the launch's block.
#pragma once
#include <cuda_runtime.h>

#ifdef LAUNCH_DEBUG
#define launch_device(kernel, dim, args)                     \
  {                                                          \
    const int num_threads = 128;                             \
    kernel<<<(dim + num_threads - 1) / num_threads, 128>>> args; \
    cudaDeviceSynchronize();                                 \
  }
#else
#define launch_device(kernel, dim, args)                       \
  {                                                            \
    if (dim) {                                                 \
      const int num_threads = 256;                             \
      const int num_blocks = (dim + num_threads - 1) / num_threads; \
      kernel<<<num_blocks, 256, 0, 0>>> args;                  \
    }                                                          \
  }
#endif

__global__ void fill_kernel(float *x, int n, float v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = v;
}

// A launcher of the header itself expanding the macro: expanded before the
// main file's redefinition, it keeps the header's block.
inline void fill(float *x, int n, float v) {
  launch_device(fill_kernel, n, (x, n, v));
}
