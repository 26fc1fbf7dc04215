// out[t, i] = silu(in[t, i]) * in[t, d + i] for t < tokens, i < d.
#include <cuda_bf16.h>

namespace ops {

template <typename T, int BLOCK_SIZE, int VEC>
__global__ void __launch_bounds__(BLOCK_SIZE)
silu_and_mul(T *__restrict__ out, const T *__restrict__ in, int d) {
  static_assert(VEC >= 1 && VEC <= 8, "VEC must be in 1..8");
  const long token = blockIdx.x;
  for (int i = threadIdx.x * VEC; i < d; i += BLOCK_SIZE * VEC) {
#pragma unroll
    for (int v = 0; v < VEC; ++v) {
      if (i + v < d) {
        float x = static_cast<float>(in[token * 2 * d + i + v]);
        float y = static_cast<float>(in[token * 2 * d + d + i + v]);
        out[token * d + i + v] = T(x / (1.0f + __expf(-x)) * y);
      }
    }
  }
}

} // namespace ops
