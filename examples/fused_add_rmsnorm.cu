// fused_add_rmsnorm.cu - residual add followed by RMS normalisation, in place.
//
//   residual[t, :] = input[t, :] + residual[t, :]
//   input[t, i]    = residual[t, i] * rsqrt(mean_j(residual[t, j]^2) + eps)
//                    * weight[i]
//
// Layout: input, residual [num_tokens, hidden] row-major, both read and
//         written; weight [hidden]; T is __nv_bfloat16, __half or float,
//         arithmetic in float. The sum of squares uses the unrounded sums;
//         the output uses the stored (rounded) residual.
// Launch: one block of kThreadsPerBlock threads per token; threads stride
//         over the row in packs of VecSize elements; cub::BlockReduce sums
//         the squares.
// Preconditions: pointers 16-byte aligned (32-byte for float, whose packs
//         are 8 x 4 bytes). When hidden is not a multiple of the pack width
//         the kernel takes its scalar path.
// Tuning constants:
//   kThreadsPerBlock = 256  namespace-scope constexpr: __launch_bounds__,
//                           cub::BlockReduce size, loop stride, launch block
//   VecSize = 8             template argument at the launch site
//   #pragma unroll          full unroll of the per-pack loops

#include <cub/block/block_reduce.cuh>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace ops {

enum class ScalarType : int { kFloat32 = 0, kFloat16 = 1, kBFloat16 = 2 };

/// Threads per block; one block normalises one token.
constexpr int kThreadsPerBlock = 256;

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

template <typename T, int VecSize>
__global__ void __launch_bounds__(kThreadsPerBlock)
    fused_add_rmsnorm_kernel(T *__restrict__ input, T *__restrict__ residual,
                             const T *__restrict__ weight, const int hidden,
                             const float eps) {
  using Pack = AlignedPack<T, VecSize>;
  using BlockReduce = cub::BlockReduce<float, kThreadsPerBlock>;
  __shared__ typename BlockReduce::TempStorage reduce_storage;
  __shared__ float inv_rms;

  const int64_t token = blockIdx.x;
  T *x = input + token * hidden;
  T *r = residual + token * hidden;
  const bool vectorized = hidden % VecSize == 0;
  const int num_packs = hidden / VecSize;

  // Pass 1: residual += input, accumulate the squares.
  float sum_sq = 0.0f;
  if (vectorized) {
    for (int p = threadIdx.x; p < num_packs; p += kThreadsPerBlock) {
      const Pack xv = reinterpret_cast<const Pack *>(x)[p];
      Pack rv = reinterpret_cast<const Pack *>(r)[p];
#pragma unroll
      for (int i = 0; i < VecSize; ++i) {
        const float s = to_float(xv.v[i]) + to_float(rv.v[i]);
        rv.v[i] = from_float<T>(s);
        sum_sq += s * s;
      }
      reinterpret_cast<Pack *>(r)[p] = rv;
    }
  } else {
    for (int i = threadIdx.x; i < hidden; i += kThreadsPerBlock) {
      const float s = to_float(x[i]) + to_float(r[i]);
      r[i] = from_float<T>(s);
      sum_sq += s * s;
    }
  }

  const float total = BlockReduce(reduce_storage).Sum(sum_sq);
  if (threadIdx.x == 0)
    inv_rms = rsqrtf(total / static_cast<float>(hidden) + eps);
  __syncthreads();
  const float scale = inv_rms;

  // Pass 2: every thread reads back only the elements it wrote in pass 1.
  if (vectorized) {
    for (int p = threadIdx.x; p < num_packs; p += kThreadsPerBlock) {
      const Pack rv = reinterpret_cast<const Pack *>(r)[p];
      const Pack wv = reinterpret_cast<const Pack *>(weight)[p];
      Pack out;
#pragma unroll
      for (int i = 0; i < VecSize; ++i)
        out.v[i] = from_float<T>(to_float(rv.v[i]) * scale * to_float(wv.v[i]));
      reinterpret_cast<Pack *>(x)[p] = out;
    }
  } else {
    for (int i = threadIdx.x; i < hidden; i += kThreadsPerBlock)
      x[i] = from_float<T>(to_float(r[i]) * scale * to_float(weight[i]));
  }
}

template <typename T>
static void fused_add_rmsnorm_impl(T *input, T *residual, const T *weight,
                                   int num_tokens, int hidden, float eps,
                                   cudaStream_t stream) {
  dim3 grid(num_tokens);
  dim3 block(kThreadsPerBlock);
  fused_add_rmsnorm_kernel<T, 8>
      <<<grid, block, 0, stream>>>(input, residual, weight, hidden, eps);
}

/// In place: residual += input; input = rmsnorm(residual) * weight.
/// Errors surface through cudaGetLastError().
void launch_fused_add_rmsnorm(void *input, void *residual, const void *weight,
                              int num_tokens, int hidden, float eps,
                              ScalarType dtype, cudaStream_t stream) {
  if (num_tokens == 0 || hidden == 0)
    return;
  switch (dtype) {
  case ScalarType::kBFloat16:
    fused_add_rmsnorm_impl(static_cast<__nv_bfloat16 *>(input),
                           static_cast<__nv_bfloat16 *>(residual),
                           static_cast<const __nv_bfloat16 *>(weight),
                           num_tokens, hidden, eps, stream);
    break;
  case ScalarType::kFloat16:
    fused_add_rmsnorm_impl(
        static_cast<__half *>(input), static_cast<__half *>(residual),
        static_cast<const __half *>(weight), num_tokens, hidden, eps, stream);
    break;
  case ScalarType::kFloat32:
    fused_add_rmsnorm_impl(
        static_cast<float *>(input), static_cast<float *>(residual),
        static_cast<const float *>(weight), num_tokens, hidden, eps, stream);
    break;
  }
}

} // namespace ops
