// Launches a kernel of a project header (found through -I ../include) and
// one of a system header (-isystem ../sys); defines a kernel that nothing
// in this file launches.
#include <mylib/act.cuh>
#include <vendor/vendor_kernel.cuh>

__global__ void unlaunched_kernel(float *x, int n) {
#pragma unroll 4
  for (int k = 0; k < 4; ++k)
    if (threadIdx.x * 4 + k < n)
      x[threadIdx.x * 4 + k] = 1.0f;
}

void scale(float *out, const float *in, int n, cudaStream_t stream) {
  mylib::scale_kernel<<<(n + 1023) / 1024, 256, 0, stream>>>(out, in, n);
}

void clear(float *x, int rows, cudaStream_t stream) {
  vendor_kernel<<<rows, 512, 0, stream>>>(x);
}
