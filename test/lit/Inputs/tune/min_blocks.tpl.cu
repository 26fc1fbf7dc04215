// min_blocks.tpl.cu: min_blocks.cu as a template whose register cap the
// dispatch header can apply: a min-blocks parameter in __launch_bounds__,
// 0 by default (the same PTX as the original's bounds).
#include <cuda_runtime.h>

template <int BLOCK = 256, int MIN_BLOCKS = 0>
__global__ void __launch_bounds__(BLOCK, MIN_BLOCKS)
    smooth(float *out, const float *in, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i > 0 && i + 1 < n)
    out[i] = 0.25f * in[i - 1] + 0.5f * in[i] + 0.25f * in[i + 1];
}

#ifndef __CUDACC_RTC__
template <int BLOCK = 256, int MIN_BLOCKS = 0>
void launch_smooth(float *out, const float *in, int n, cudaStream_t stream) {
  smooth<BLOCK, MIN_BLOCKS>
      <<<(n + BLOCK - 1) / BLOCK, BLOCK, 0, stream>>>(out, in, n);
}
#endif
