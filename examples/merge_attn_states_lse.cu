// merge_attn_states_lse.cu - combine two partial attention results by their
// log-sum-exp (cascade / split-KV attention).
//
//   m        = max(s_a, s_b)
//   w_a      = exp(s_a - m),   w_b = exp(s_b - m)
//   v_merged = (v_a * w_a + v_b * w_b) / (w_a + w_b)
//   s_merged = m + log(w_a + w_b)
//
// Layout: v_a, v_b, v_merged [num_tokens, num_heads, head_dim] row-major
//         (T = __nv_bfloat16, __half or float); s_a, s_b, s_merged
//         [num_tokens, num_heads] float, natural-log LSE. An LSE of +inf or
//         -inf marks an empty partial (weight 0); when both are empty the
//         output is 0 and s_merged is -inf.
// Launch: 1-D grid; each thread merges one PackSize-element pack of one
//         (token, head) row; ceil(head_dim / PackSize) threads share a row.
// Preconditions: vectors 16-byte aligned. When head_dim is not a multiple of
//         PackSize the rows are not pack-aligned and threads go element by
//         element.
// Tuning constants:
//   kThreadsPerBlock = 128     host-local constexpr: launch block and the
//                              ceil-division of the grid
//   kPackSize = 16 / sizeof(T) host-local constexpr passed as the kernel's
//                              PackSize template argument

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <math_constants.h>

#include <cstdint>

namespace ops {

enum class ScalarType : int { kFloat32 = 0, kFloat16 = 1, kBFloat16 = 2 };

namespace {

template <typename T, int N> struct alignas(sizeof(T) * N) AlignedPack {
  T v[N];
};

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

} // namespace

template <typename T, int PackSize>
__global__ void merge_attn_states_lse_kernel(
    T *__restrict__ v_merged, float *__restrict__ s_merged,
    const T *__restrict__ v_a, const float *__restrict__ s_a,
    const T *__restrict__ v_b, const float *__restrict__ s_b,
    const int num_tokens, const int num_heads, const int head_dim) {
  using Pack = AlignedPack<T, PackSize>;
  const int threads_per_head = (head_dim + PackSize - 1) / PackSize;
  const int64_t thread_index =
      static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t num_threads =
      static_cast<int64_t>(num_tokens) * num_heads * threads_per_head;
  if (thread_index >= num_threads)
    return;

  // Row = token * num_heads + head; the LSE arrays are indexed by row.
  const int64_t row = thread_index / threads_per_head;
  const int pack = static_cast<int>(thread_index % threads_per_head);

  float lse_a = s_a[row];
  float lse_b = s_b[row];
  lse_a = isinf(lse_a) ? -CUDART_INF_F : lse_a;
  lse_b = isinf(lse_b) ? -CUDART_INF_F : lse_b;
  const float max_lse = fmaxf(lse_a, lse_b);
  float scale_a = 0.0f, scale_b = 0.0f;
  if (max_lse != -CUDART_INF_F) {
    const float w_a = __expf(lse_a - max_lse);
    const float w_b = __expf(lse_b - max_lse);
    const float inv_sum = 1.0f / (w_a + w_b);
    scale_a = w_a * inv_sum;
    scale_b = w_b * inv_sum;
    if (pack == 0)
      s_merged[row] = __logf(w_a + w_b) + max_lse;
  } else if (pack == 0) {
    s_merged[row] = -CUDART_INF_F;
  }

  const int first = pack * PackSize;
  const int64_t offset = row * head_dim + first;
  if (head_dim % PackSize == 0) {
    const Pack a = *reinterpret_cast<const Pack *>(v_a + offset);
    const Pack b = *reinterpret_cast<const Pack *>(v_b + offset);
    Pack out;
#pragma unroll
    for (int i = 0; i < PackSize; ++i)
      out.v[i] = from_float<T>(to_float(a.v[i]) * scale_a +
                               to_float(b.v[i]) * scale_b);
    *reinterpret_cast<Pack *>(v_merged + offset) = out;
  } else {
    // Rows are not pack-aligned: element by element, the last pack short.
    const int count = min(PackSize, head_dim - first);
    for (int i = 0; i < count; ++i)
      v_merged[offset + i] = from_float<T>(to_float(v_a[offset + i]) * scale_a +
                                           to_float(v_b[offset + i]) * scale_b);
  }
}

template <typename T>
static void merge_attn_states_lse_impl(T *v_merged, float *s_merged,
                                       const T *v_a, const float *s_a,
                                       const T *v_b, const float *s_b,
                                       int num_tokens, int num_heads,
                                       int head_dim, cudaStream_t stream) {
  constexpr int kThreadsPerBlock = 128;
  constexpr int kPackSize = 16 / sizeof(T);
  const int threads_per_head = (head_dim + kPackSize - 1) / kPackSize;
  const int64_t total_threads =
      static_cast<int64_t>(num_tokens) * num_heads * threads_per_head;
  dim3 block(kThreadsPerBlock);
  dim3 grid((total_threads + kThreadsPerBlock - 1) / kThreadsPerBlock);
  merge_attn_states_lse_kernel<T, kPackSize><<<grid, block, 0, stream>>>(
      v_merged, s_merged, v_a, s_a, v_b, s_b, num_tokens, num_heads, head_dim);
}

/// Merges two attention partials by their log-sum-exp. Errors surface
/// through cudaGetLastError().
void launch_merge_attn_states_lse(void *v_merged, float *s_merged,
                                  const void *v_a, const float *s_a,
                                  const void *v_b, const float *s_b,
                                  int num_tokens, int num_heads, int head_dim,
                                  ScalarType dtype, cudaStream_t stream) {
  if (num_tokens == 0 || num_heads == 0 || head_dim == 0)
    return;
  switch (dtype) {
  case ScalarType::kBFloat16:
    merge_attn_states_lse_impl(static_cast<__nv_bfloat16 *>(v_merged), s_merged,
                               static_cast<const __nv_bfloat16 *>(v_a), s_a,
                               static_cast<const __nv_bfloat16 *>(v_b), s_b,
                               num_tokens, num_heads, head_dim, stream);
    break;
  case ScalarType::kFloat16:
    merge_attn_states_lse_impl(static_cast<__half *>(v_merged), s_merged,
                               static_cast<const __half *>(v_a), s_a,
                               static_cast<const __half *>(v_b), s_b,
                               num_tokens, num_heads, head_dim, stream);
    break;
  case ScalarType::kFloat32:
    merge_attn_states_lse_impl(static_cast<float *>(v_merged), s_merged,
                               static_cast<const float *>(v_a), s_a,
                               static_cast<const float *>(v_b), s_b, num_tokens,
                               num_heads, head_dim, stream);
    break;
  }
}

} // namespace ops
