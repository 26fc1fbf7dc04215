// silu_and_mul.cu - SiLU-gated product of an MLP's fused gate/up projection.
//
//   out[t, i] = silu(input[t, i]) * input[t, d + i],   silu(x) = x / (1 + e^-x)
//
// Layout: input [num_tokens, 2 * d] row-major (gate half, then up half),
//         out   [num_tokens, d]     row-major; T is __nv_bfloat16, __half or
//         float, arithmetic in float. d is implied by the input's last
//         dimension.
// Launch: one block per token; its threads stride over the row in 16-byte
//         packs (vectorised loads and stores).
// Preconditions: out and input are 16-byte aligned (allocator memory is).
//         When d is not a multiple of the pack width the rows are not 16-byte
//         aligned, and the kernel takes its scalar path instead.
// Tuning constants:
//   kVecSize = 16 / sizeof(T)  elements per 16-byte pack: a kernel-local
//                              constexpr, repeated on the host as vec_size
//   std::min(..., 1024)        cap on threads per block (host)
//   #pragma unroll             full unroll of the per-pack loop

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
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

__device__ __forceinline__ float silu(float x) {
  return x / (1.0f + __expf(-x));
}

} // namespace

template <typename T>
__global__ void silu_and_mul_kernel(T *__restrict__ out,
                                    const T *__restrict__ input, const int d) {
  constexpr int kVecSize = 16 / sizeof(T);
  using Pack = AlignedPack<T, kVecSize>;

  const int64_t token = blockIdx.x;
  const T *gate = input + token * 2 * d;
  const T *up = gate + d;
  T *dst = out + token * d;

  if (d % kVecSize == 0) {
    const Pack *gate_packs = reinterpret_cast<const Pack *>(gate);
    const Pack *up_packs = reinterpret_cast<const Pack *>(up);
    Pack *dst_packs = reinterpret_cast<Pack *>(dst);
    const int num_packs = d / kVecSize;
    for (int p = threadIdx.x; p < num_packs; p += blockDim.x) {
      const Pack g = gate_packs[p];
      const Pack u = up_packs[p];
      Pack r;
#pragma unroll
      for (int i = 0; i < kVecSize; ++i)
        r.v[i] = from_float<T>(silu(to_float(g.v[i])) * to_float(u.v[i]));
      dst_packs[p] = r;
    }
  } else {
    for (int i = threadIdx.x; i < d; i += blockDim.x)
      dst[i] = from_float<T>(silu(to_float(gate[i])) * to_float(up[i]));
  }
}

template <typename T>
static void silu_and_mul_impl(T *out, const T *input, int num_tokens, int d,
                              cudaStream_t stream) {
  const int vec_size = 16 / sizeof(T);
  dim3 grid(num_tokens);
  dim3 block(std::min(std::max(d / vec_size, 1), 1024));
  silu_and_mul_kernel<T><<<grid, block, 0, stream>>>(out, input, d);
}

/// out [num_tokens, input_dim / 2] = silu(gate) * up for input
/// [num_tokens, input_dim]. Errors surface through cudaGetLastError().
void launch_silu_and_mul(void *out, const void *input, int num_tokens,
                         int input_dim, ScalarType dtype, cudaStream_t stream) {
  const int d = input_dim / 2;
  if (num_tokens == 0 || d == 0)
    return;
  switch (dtype) {
  case ScalarType::kBFloat16:
    silu_and_mul_impl(static_cast<__nv_bfloat16 *>(out),
                      static_cast<const __nv_bfloat16 *>(input), num_tokens, d,
                      stream);
    break;
  case ScalarType::kFloat16:
    silu_and_mul_impl(static_cast<__half *>(out),
                      static_cast<const __half *>(input), num_tokens, d,
                      stream);
    break;
  case ScalarType::kFloat32:
    silu_and_mul_impl(static_cast<float *>(out),
                      static_cast<const float *>(input), num_tokens, d, stream);
    break;
  }
}

} // namespace ops
