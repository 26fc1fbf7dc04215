// The header the project's sources include: the platform runtime, the
// configuration and one kernel of its own.
#pragma once

#if defined(__HIP__)
#include <hip/hip_runtime.h>
#else
#include <cuda_runtime.h>
#endif
#include "config.h"

#ifdef USE_WIDE
#define VEC 4
#else
#define VEC 2
#endif

__global__ void scale(float *x, float s, int n) {
  int base = (blockIdx.x * BLOCK + threadIdx.x) * VEC;
  for (int v = 0; v < VEC; ++v)
    if (base + v < n)
      x[base + v] *= s;
}
