// Launchers written the way nvcc reads and Clang's parser does not: spaced
// chevrons, and a braced block. src/use_spaced.cu calls them.
#pragma once

namespace mylib {

__global__ void negate_kernel(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = -x[i];
}

inline void negate(float *x, int n) {
  const int threads = 64;
  negate_kernel << < (n + threads - 1) / threads, threads >> > (x, n);
}

inline void negate_2d(float *x, int n) {
  const int bx = 32, by = 4;
  negate_kernel<<<(n + bx * by - 1) / (bx * by), {bx * by, 1, 1}>>>(x, n);
}

} // namespace mylib
