#pragma once
#include "features.h"

__global__ void scale(float *x, int n) {
  int i = blockIdx.x * 128 + threadIdx.x;
  if (i < n)
    x[i] *= PROJECT_SCALE;
}
