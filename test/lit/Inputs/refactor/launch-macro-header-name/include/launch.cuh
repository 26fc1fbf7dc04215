// CUDA-PointPillars' launch.cuh shape: a launch macro whose body names the
// header's block-size macro, for the grid and the block.
#pragma once
#include <cuda_runtime.h>

#define LINEAR_LAUNCH_THREADS 512

inline unsigned int divup(unsigned int n, unsigned int d) { return (n + d - 1) / d; }

#define cuda_linear_launch(kernel, stream, num, ...) \
  kernel<<<divup(num, LINEAR_LAUNCH_THREADS), LINEAR_LAUNCH_THREADS, 0, stream>>>(num, __VA_ARGS__)
