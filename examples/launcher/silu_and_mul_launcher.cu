// silu_and_mul_launcher.cu: the host launcher of act_and_mul_kernel, as a
// serving framework writes it. The block size is capped on the host
// (std::min(d / vec_size, 1024U)) and the kernel reads it from blockDim: the
// cap is the only tunable, and it lives in this function.
#include "act_and_mul.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

namespace demo {

template <typename T>
void silu_and_mul(T *out, const T *input, int d, int64_t num_tokens,
                  cudaStream_t stream) {
  uint32_t vec_size = 16 / sizeof(T);
  dim3 grid(num_tokens);
  dim3 block(std::min(d / vec_size, 1024U));
  activation::act_and_mul_kernel<T, activation::silu>
      <<<grid, block, 0, stream>>>(out, input, d);
}

template void silu_and_mul<__nv_bfloat16>(__nv_bfloat16 *,
                                          const __nv_bfloat16 *, int, int64_t,
                                          cudaStream_t);

} // namespace demo
