// too_much_smem.cu (written for the test): Clang parses it and the
// refactorer lifts its block size, but the kernel's static shared memory
// (280 KB) is more than any GPU has, so ptxas refuses the original kernel:
// the default configuration of its template cannot be compiled.
#include <cuda_runtime.h>

__global__ void too_much_smem(float *out, const float *in, int n) {
  __shared__ float stage[70000];
  int i = blockIdx.x * 256 + threadIdx.x;
  stage[threadIdx.x] = in[i % n];
  __syncthreads();
  if (i < n)
    out[i] = stage[255 - threadIdx.x];
}

void launch_too_much_smem(float *out, const float *in, int n,
                          cudaStream_t stream) {
  too_much_smem<<<(n + 255) / 256, 256, 0, stream>>>(out, in, n);
}
