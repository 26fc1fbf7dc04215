#include "launch.cuh"

static __global__ void arange_kernel(unsigned int num, float *out) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < num) out[i] = static_cast<float>(i);
}

static __global__ void half_kernel(unsigned int num, const float *in, float *out) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < num) out[i] = in[i] * 0.5f;
}

void arange(float *out, unsigned int num, cudaStream_t stream) {
  cuda_linear_launch(arange_kernel, stream, num, out);
}

void halve(const float *in, float *out, unsigned int num, cudaStream_t stream) {
  cuda_linear_launch(half_kernel, stream, num, in, out);
}
