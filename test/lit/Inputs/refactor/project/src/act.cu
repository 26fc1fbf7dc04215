// Needs -I../include and -DACT_THREADS=... to parse.
#include "act_config.h"

__global__ void relu(float *x, int n) {
  int i = blockIdx.x * kActThreads + threadIdx.x;
  if (i < n && x[i] < 0.0f)
    x[i] = 0.0f;
}

void launch_relu(float *x, int n) {
  relu<<<(n + kActThreads - 1) / kActThreads, kActThreads>>>(x, n);
}
