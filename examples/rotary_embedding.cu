// rotary_embedding.cu - rotary position embedding (GPT-NeoX style), in place.
//
// For each token t with position p = positions[t], each head h and each
// i < rot_dim / 2, with cos = cache[p, i] and sin = cache[p, rot_dim/2 + i]:
//   x = q[t, h, i], y = q[t, h, rot_dim/2 + i]
//   q[t, h, i]             = x * cos_theta - y * sin_theta
//   q[t, h, rot_dim/2 + i] = y * cos + x * sin
// and the same for key with num_kv_heads heads. Elements at rot_dim and
// beyond (partial rotary) are left untouched.
//
// Layout: query [num_tokens, num_heads, head_size], key [num_tokens,
//         num_kv_heads, head_size], each with its own token stride (elements);
//         cos_sin_cache [max_position, rot_dim] = [cos | sin] halves;
//         positions [num_tokens] int64. T = __nv_bfloat16, __half or float.
// Launch: one block per token; threads stride over (head, rotary pair).
// Preconditions: rot_dim even, rot_dim <= head_size, 0 <= positions[t] <
//         max_position.
// Tuning constants:
//   std::min(num_heads * rot_dim / 2, 512)  threads per block (host, literal)

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

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

/// Rotates the pair (rot_offset, embed_dim + rot_offset) of one head.
template <typename T>
__device__ __forceinline__ void
rotate_neox_pair(T *__restrict__ head, const T *__restrict__ cos_ptr,
                 const T *__restrict__ sin_ptr, const int rot_offset,
                 const int embed_dim) {
  const int x_index = rot_offset;
  const int y_index = embed_dim + rot_offset;
  const float cos_theta = to_float(cos_ptr[rot_offset]);
  const float sin_theta = to_float(sin_ptr[rot_offset]);
  const float x = to_float(head[x_index]);
  const float y = to_float(head[y_index]);
  head[x_index] = from_float<T>(x * cos_theta - y * sin_theta);
  head[y_index] = from_float<T>(y * cos_theta + x * sin_theta);
}

} // namespace

template <typename T>
__global__ void rotary_embedding_kernel(
    const int64_t *__restrict__ positions, T *__restrict__ query,
    T *__restrict__ key, const T *__restrict__ cos_sin_cache, const int rot_dim,
    const int64_t query_stride, const int64_t key_stride, const int num_heads,
    const int num_kv_heads, const int head_size) {
  const int64_t token = blockIdx.x;
  const int64_t pos = positions[token];
  const int embed_dim = rot_dim / 2;
  const T *cos_ptr = cos_sin_cache + pos * rot_dim;
  const T *sin_ptr = cos_ptr + embed_dim;

  const int num_query_pairs = num_heads * embed_dim;
  for (int i = threadIdx.x; i < num_query_pairs; i += blockDim.x) {
    const int head = i / embed_dim;
    const int rot_offset = i % embed_dim;
    rotate_neox_pair(query + token * query_stride +
                         static_cast<int64_t>(head) * head_size,
                     cos_ptr, sin_ptr, rot_offset, embed_dim);
  }

  const int num_key_pairs = num_kv_heads * embed_dim;
  for (int i = threadIdx.x; i < num_key_pairs; i += blockDim.x) {
    const int head = i / embed_dim;
    const int rot_offset = i % embed_dim;
    rotate_neox_pair(key + token * key_stride +
                         static_cast<int64_t>(head) * head_size,
                     cos_ptr, sin_ptr, rot_offset, embed_dim);
  }
}

template <typename T>
static void
rotary_embedding_impl(const int64_t *positions, T *query, T *key,
                      const T *cos_sin_cache, int num_tokens, int rot_dim,
                      int64_t query_stride, int64_t key_stride, int num_heads,
                      int num_kv_heads, int head_size, cudaStream_t stream) {
  dim3 grid(num_tokens);
  dim3 block(std::min(num_heads * rot_dim / 2, 512));
  rotary_embedding_kernel<T><<<grid, block, 0, stream>>>(
      positions, query, key, cos_sin_cache, rot_dim, query_stride, key_stride,
      num_heads, num_kv_heads, head_size);
}

/// Applies NeoX-style rotary embedding to query and key in place. Errors
/// surface through cudaGetLastError().
void launch_rotary_embedding(const int64_t *positions, void *query, void *key,
                             const void *cos_sin_cache, int num_tokens,
                             int rot_dim, int64_t query_stride,
                             int64_t key_stride, int num_heads,
                             int num_kv_heads, int head_size, ScalarType dtype,
                             cudaStream_t stream) {
  if (num_tokens == 0 || num_heads == 0 || rot_dim < 2)
    return;
  switch (dtype) {
  case ScalarType::kBFloat16:
    rotary_embedding_impl(positions, static_cast<__nv_bfloat16 *>(query),
                          static_cast<__nv_bfloat16 *>(key),
                          static_cast<const __nv_bfloat16 *>(cos_sin_cache),
                          num_tokens, rot_dim, query_stride, key_stride,
                          num_heads, num_kv_heads, head_size, stream);
    break;
  case ScalarType::kFloat16:
    rotary_embedding_impl(
        positions, static_cast<__half *>(query), static_cast<__half *>(key),
        static_cast<const __half *>(cos_sin_cache), num_tokens, rot_dim,
        query_stride, key_stride, num_heads, num_kv_heads, head_size, stream);
    break;
  case ScalarType::kFloat32:
    rotary_embedding_impl(
        positions, static_cast<float *>(query), static_cast<float *>(key),
        static_cast<const float *>(cos_sin_cache), num_tokens, rot_dim,
        query_stride, key_stride, num_heads, num_kv_heads, head_size, stream);
    break;
  }
}

} // namespace ops
