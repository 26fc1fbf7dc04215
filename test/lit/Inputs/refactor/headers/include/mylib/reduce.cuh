// A reduction and its launcher in a header; the main file never calls the
// launcher, it hands it to a benchmark runner (src/use_named_launcher.cu).
#pragma once

namespace mylib {

__global__ void reduce_sum_kernel(const int *in, int *out, int n) {
  int sum = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    sum += in[i];
  atomicAdd(out, sum);
}

inline void reduce_sum(const int *in, int *out, int n) {
  int threads = 256;
  int blocks = (n + threads - 1) / threads;
  if (blocks > 2048)
    blocks = 2048;
  cudaMemsetAsync(out, 0, sizeof(int));
  reduce_sum_kernel<<<blocks, threads>>>(in, out, n);
}

} // namespace mylib
