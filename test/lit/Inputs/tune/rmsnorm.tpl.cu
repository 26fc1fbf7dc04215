// A hand-written template in the form ktune-refactor emits: the tuning
// constants are template parameters with the original values as defaults.
#include <cuda_bf16.h>

namespace ops {

template <typename T, int BLOCK_SIZE = 256, int VEC = 4>
__global__ void rmsnorm(T *__restrict__ out, const T *__restrict__ in,
                        int hidden, float eps) {
  __shared__ float partial[BLOCK_SIZE / 32];
  const T *row = in + static_cast<size_t>(blockIdx.x) * hidden;
  T *outRow = out + static_cast<size_t>(blockIdx.x) * hidden;
  float sum = 0.f;
  for (int i = threadIdx.x * VEC; i < hidden; i += BLOCK_SIZE * VEC)
#pragma unroll
    for (int v = 0; v < VEC; ++v) {
      float x = static_cast<float>(row[i + v]);
      sum += x * x;
    }
  for (int offset = 16; offset > 0; offset /= 2)
    sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  if (threadIdx.x % 32 == 0)
    partial[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    float s = threadIdx.x < BLOCK_SIZE / 32 ? partial[threadIdx.x] : 0.f;
    for (int offset = 16; offset > 0; offset /= 2)
      s += __shfl_xor_sync(0xffffffffu, s, offset);
    if (threadIdx.x == 0)
      partial[0] = s;
  }
  __syncthreads();
  float scale = rsqrtf(partial[0] / hidden + eps);
  for (int i = threadIdx.x * VEC; i < hidden; i += BLOCK_SIZE * VEC)
#pragma unroll
    for (int v = 0; v < VEC; ++v)
      outRow[i + v] = static_cast<T>(static_cast<float>(row[i + v]) * scale);
}

} // namespace ops
