#include "config.h"

__global__ void __launch_bounds__(256) blur(float *out, const float *in, int n) {
  float v[4];
  int i = blockIdx.x * 256 + threadIdx.x;
#pragma unroll
  for (int k = 0; k < 4; ++k) v[k] = i < n ? in[i * 4 + k] : 0.0f;
  if (i < n) out[i] = v[0] + v[1] + v[2] + v[3];
}

void run(float *out, const float *in, int n) {
  blur<<<(n + 255) / 256, 256>>>(out, in, n);
}
