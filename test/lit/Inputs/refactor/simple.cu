// A small kernel for the command-line tests.
#define BLOCK 256

__global__ void __launch_bounds__(BLOCK) scale(float *x, float a, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n)
    x[i] *= a;
}

__global__ void axpy(float *y, const float4 *x, float a, int n) {
#pragma unroll 4
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    y[i] += a * x[i].x;
}

void launch(float *x, float a, int n) {
  scale<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(x, a, n);
  axpy<<<1, 128>>>(x, nullptr, a, n);
}
