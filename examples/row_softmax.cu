// row_softmax.cu - numerically stable softmax over each row of a matrix.
//
//   out[r, c] = exp(in[r, c] - max_c in[r, :]) / sum_c exp(in[r, c] - max)
//
// Layout: in, out [rows, cols] row-major; T = float, __half or
//         __nv_bfloat16, arithmetic in float.
// Launch: one block of SOFTMAX_BLOCK_SIZE threads per row; three strided
//         sweeps (max, sum, write) with two shared-memory tree reductions.
// Preconditions: SOFTMAX_BLOCK_SIZE is a power of two (tree reduction).
// Tuning constants:
//   #define SOFTMAX_BLOCK_SIZE 256  __launch_bounds__, shared buffer size,
//                                   loop stride, reduction template argument,
//                                   launch block
//   #pragma unroll 4                partial unroll of each strided sweep

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <math_constants.h>

#include <cstdint>

#define SOFTMAX_BLOCK_SIZE 256

namespace ops {

enum class ScalarType : int { kFloat32 = 0, kFloat16 = 1, kBFloat16 = 2 };

namespace {

__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) {
  return __bfloat162float(v);
}

template <typename T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ float from_float<float>(float v) {
  return v;
}
template <> __device__ __forceinline__ __half from_float<__half>(float v) {
  return __float2half_rn(v);
}
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}

struct MaxOp {
  __device__ __forceinline__ float operator()(float a, float b) const {
    return fmaxf(a, b);
  }
};
struct SumOp {
  __device__ __forceinline__ float operator()(float a, float b) const {
    return a + b;
  }
};

/// Tree reduction over a block of BlockSize threads; every thread gets the
/// result. `buffer` holds BlockSize floats and is free again on return.
template <int BlockSize, typename Op>
__device__ __forceinline__ float block_all_reduce(float value, float *buffer,
                                                  Op op) {
  const int tid = threadIdx.x;
  buffer[tid] = value;
  __syncthreads();
#pragma unroll
  for (int stride = BlockSize / 2; stride > 0; stride >>= 1) {
    if (tid < stride)
      buffer[tid] = op(buffer[tid], buffer[tid + stride]);
    __syncthreads();
  }
  const float result = buffer[0];
  __syncthreads();
  return result;
}

} // namespace

template <typename T>
__global__ void __launch_bounds__(SOFTMAX_BLOCK_SIZE)
    row_softmax_kernel(T *__restrict__ out, const T *__restrict__ in,
                       const int cols) {
  __shared__ float reduce_buffer[SOFTMAX_BLOCK_SIZE];
  const int64_t row = blockIdx.x;
  const T *x = in + row * cols;
  T *y = out + row * cols;

  float local_max = -CUDART_INF_F;
#pragma unroll 4
  for (int c = threadIdx.x; c < cols; c += SOFTMAX_BLOCK_SIZE)
    local_max = fmaxf(local_max, to_float(x[c]));
  const float row_max =
      block_all_reduce<SOFTMAX_BLOCK_SIZE>(local_max, reduce_buffer, MaxOp());

  float local_sum = 0.0f;
#pragma unroll 4
  for (int c = threadIdx.x; c < cols; c += SOFTMAX_BLOCK_SIZE)
    local_sum += __expf(to_float(x[c]) - row_max);
  const float row_sum =
      block_all_reduce<SOFTMAX_BLOCK_SIZE>(local_sum, reduce_buffer, SumOp());

  const float inv_sum = 1.0f / row_sum;
#pragma unroll 4
  for (int c = threadIdx.x; c < cols; c += SOFTMAX_BLOCK_SIZE)
    y[c] = from_float<T>(__expf(to_float(x[c]) - row_max) * inv_sum);
}

template <typename T>
static void row_softmax_impl(T *out, const T *in, int rows, int cols,
                             cudaStream_t stream) {
  row_softmax_kernel<T><<<rows, SOFTMAX_BLOCK_SIZE, 0, stream>>>(out, in, cols);
}

/// Softmax over each row of in [rows, cols]. Errors surface through
/// cudaGetLastError().
void launch_row_softmax(void *out, const void *in, int rows, int cols,
                        ScalarType dtype, cudaStream_t stream) {
  if (rows == 0 || cols == 0)
    return;
  switch (dtype) {
  case ScalarType::kFloat32:
    row_softmax_impl(static_cast<float *>(out), static_cast<const float *>(in),
                     rows, cols, stream);
    break;
  case ScalarType::kFloat16:
    row_softmax_impl(static_cast<__half *>(out),
                     static_cast<const __half *>(in), rows, cols, stream);
    break;
  case ScalarType::kBFloat16:
    row_softmax_impl(static_cast<__nv_bfloat16 *>(out),
                     static_cast<const __nv_bfloat16 *>(in), rows, cols,
                     stream);
    break;
  }
}

} // namespace ops
