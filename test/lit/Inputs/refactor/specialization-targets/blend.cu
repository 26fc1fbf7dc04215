#include "vec.h"

__global__ void blend(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = alpha(in[i], 1.0f);
}

void run_blend(float *out, const float *in, int n) {
  blend<<<(n + 127) / 128, 128>>>(out, in, n);
}
