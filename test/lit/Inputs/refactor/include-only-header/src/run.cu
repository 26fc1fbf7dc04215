#include "kernels.cuh"

void run_gemm(int n, const float *a, const float *b, float *c) {
  dim3 block(32, 32);
  dim3 grid((n + 31) / 32, (n + 31) / 32);
  gemm_naive<<<grid, block>>>(n, a, b, c);
}
