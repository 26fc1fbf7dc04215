// A project's launch macro: the grid and block are the header's constants,
// spelled in the macro's body, not where it is expanded.
#pragma once
#include <cstdio>

const int BLOCK_SIZE = 512;
const int NUM_BLOCKS = 32 * 56;

#define CHECK_LAUNCH()                                                        \
  do {                                                                        \
    cudaError_t e = cudaPeekAtLastError();                                    \
    if (e != cudaSuccess)                                                     \
      printf("%s\n", cudaGetErrorString(e));                                  \
  } while (0)

#define SAFE_KERNEL_LAUNCH(kernel_name, ...)                                  \
  kernel_name<<<NUM_BLOCKS, BLOCK_SIZE>>>(__VA_ARGS__);                       \
  CHECK_LAUNCH()

#define KERNEL_LOOP(i, n)                                                     \
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n);                \
       i += blockDim.x * gridDim.x)
