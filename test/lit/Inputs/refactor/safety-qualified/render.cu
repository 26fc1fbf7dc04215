#include "render.h"

__global__ void __launch_bounds__(256) shade(float *out, int n) {
  int i = blockIdx.x * 256 + threadIdx.x;
  if (i < n) out[i] = 0.5f * i;
}

void NS::render(float *out, int n) {
  shade<<<(n + 255) / 256, 256>>>(out, n);
}
