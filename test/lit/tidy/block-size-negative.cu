// ktune-block-size stays silent on code without hardcoded launch geometry:
// block size passed at run time, a kernel already parameterised, literals
// unrelated to the launch, and a NOLINT.
// REQUIRES: clang-tidy, cuda-headers
// RUN: %check_ktune_tidy %s ktune-block-size %t

__global__ void axpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + 3.0f * 256;
}

void launch_axpy(float a, const float *x, float *y, int n, int threads) {
  axpy<<<(n + threads - 1) / threads, threads>>>(a, x, y, n);
}

template <int BLOCK>
__global__ void copy(float *y, const float *x) {
  y[blockIdx.x * BLOCK + threadIdx.x] = x[blockIdx.x * BLOCK + threadIdx.x];
}
template <int BLOCK = 128>
void launch_copy(float *y, const float *x, int blocks) {
  copy<BLOCK><<<blocks, BLOCK>>>(y, x);
}
