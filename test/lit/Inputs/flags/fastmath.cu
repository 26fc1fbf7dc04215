// A kernel whose register count depends on -use_fast_math (sm_90: 23
// registers precise, 14 with fast math), and which needs a -D to compile.
#include <cuda_runtime.h>

#ifndef SCALE
#error "build with -DSCALE=<value>"
#endif

__global__ void softplus_kernel(float *out, const float *in, int n) {
  int i = blockIdx.x * 256 + threadIdx.x;
  if (i < n) {
    float x = in[i];
    out[i] = SCALE * logf(1.f + expf(x)) / (x + 2.f) + sinf(x) * powf(x, 1.7f);
  }
}

void softplus(float *out, const float *in, int n, cudaStream_t stream) {
  softplus_kernel<<<(n + 255) / 256, 256, 0, stream>>>(out, in, n);
}
