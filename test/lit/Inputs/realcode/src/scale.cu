// Written for the evaluation harness test: one block size, labelled.
#define BLOCK 128

__global__ void scale(float *x, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n)
    x[i] *= 2.0f;
}

void launch_scale(float *x, int n) {
  scale<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(x, n);
}
