// min_blocks.cu (written for the test): a kernel with launch bounds and no
// minimum of resident blocks, the form whose register budget a tuned
// min-blocks parameter changes.
#include <cuda_runtime.h>

__global__ void __launch_bounds__(256)
    smooth(float *out, const float *in, int n) {
  int i = blockIdx.x * 256 + threadIdx.x;
  if (i > 0 && i + 1 < n)
    out[i] = 0.25f * in[i - 1] + 0.5f * in[i] + 0.25f * in[i + 1];
}

void launch_smooth(float *out, const float *in, int n, cudaStream_t stream) {
  smooth<<<(n + 255) / 256, 256, 0, stream>>>(out, in, n);
}
