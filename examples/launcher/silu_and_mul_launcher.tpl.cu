// silu_and_mul_launcher.tpl.cu: silu_and_mul_launcher.cu with the launcher's
// block cap lifted into a template parameter whose default is the original
// constant (the launcher was a template already: it gains the parameter).
// The kernel is unchanged: the cap is a launch parameter.
#include "act_and_mul.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

namespace demo {

template <typename T, unsigned BLOCK_CAP = 1024U>
void silu_and_mul(T *out, const T *input, int d, int64_t num_tokens,
                  cudaStream_t stream) {
  uint32_t vec_size = 16 / sizeof(T);
  dim3 grid(num_tokens);
  dim3 block(std::min(d / vec_size, BLOCK_CAP));
  activation::act_and_mul_kernel<T, activation::silu>
      <<<grid, block, 0, stream>>>(out, input, d);
}

template void silu_and_mul<__nv_bfloat16>(__nv_bfloat16 *,
                                          const __nv_bfloat16 *, int, int64_t,
                                          cudaStream_t);

} // namespace demo
