// act_and_mul.cu - FlashInfer's shape of an activation kernel: the row from
// blockIdx.x through a local, the thread index and stride through locals,
// a vector loop then a remainder loop that reads the stride, a dim3 grid,
// inline asm that neither reads ids nor synchronises.
#include <algorithm>

template <typename T>
__device__ __forceinline__ float silu(const T &x) {
  return float(x) / (1.0f + __expf(-float(x)));
}

template <typename T>
__global__ void act_and_mul_kernel(T *__restrict__ out,
                                   const T *__restrict__ input, const int d) {
  constexpr unsigned vec_size = 16 / sizeof(T);
  const long token_idx = blockIdx.x;
  const long thread_idx = threadIdx.x;
  const long stride = blockDim.x;
  const long offset = token_idx * 2 * d;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;");
#endif
#pragma unroll 1
  for (unsigned idx = thread_idx; idx < d / vec_size; idx += stride) {
#pragma unroll
    for (unsigned i = 0; i < vec_size; ++i) {
      const long at = idx * vec_size + i;
      out[token_idx * d + at] = silu(input[offset + at]) * input[offset + d + at];
    }
  }
  const long remaining_offset = d - d % (stride * vec_size);
#pragma unroll 1
  for (long idx = thread_idx; idx < d % (stride * vec_size); idx += stride) {
    const long at = remaining_offset + idx;
    out[token_idx * d + at] = silu(input[offset + at]) * input[offset + d + at];
  }
}

void silu_and_mul(float *out, const float *input, int d, long num_tokens,
                  cudaStream_t stream) {
  dim3 grid(num_tokens);
  unsigned vec_size = 16 / sizeof(float);
  dim3 block(std::min(d / vec_size, 1024U));
  act_and_mul_kernel<float><<<grid, block, 0, stream>>>(out, input, d);
}
