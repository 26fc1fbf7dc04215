// Calls a constexpr host function from device code: compiles only with
// nvcc's --expt-relaxed-constexpr, which NVRTC does not take.
#include <cuda_runtime.h>

constexpr int lanes(int width) { return width / 4; }

__global__ void fill_kernel(int *out, int n) {
  int i = blockIdx.x * 128 + threadIdx.x;
  if (i < n)
    out[i] = lanes(i);
}

void fill(int *out, int n, cudaStream_t stream) {
  fill_kernel<<<(n + 127) / 128, 128, 0, stream>>>(out, n);
}
