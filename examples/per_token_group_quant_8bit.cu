// per_token_group_quant_8bit.cu - per-token, per-group symmetric quantisation
// to int8 or fp8 (e4m3), as used before 8-bit block-scaled GEMMs.
//
// Every row of input is cut into groups of group_size contiguous elements.
// For group g:  scale[g] = max(absmax(group), eps) / max_8bit
//               q[i]     = convert(clamp(x[i] / scale[g], min_8bit, max_8bit))
// with round-to-nearest-even for int8 and saturating conversion for fp8.
//
// Layout: input [num_tokens, hidden] row-major (T = __nv_bfloat16, __half or
//         float); output_q [num_tokens, hidden] (int8_t or __nv_fp8_e4m3);
//         output_s [num_tokens, hidden / group_size] float, row-major, i.e.
//         one scale per group in group order.
// Launch: 1-D grid; kThreadsPerGroup lanes share one group and reduce its
//         absmax with __shfl_xor_sync; kGroupsPerBlock groups per block.
// Preconditions: hidden % group_size == 0, group_size % (16 / sizeof(T)) == 0,
//         input 16-byte aligned, output_q 8-byte aligned (4-byte for float).
//         kThreadsPerGroup is a power of two no larger than the warp (32),
//         so a group's lanes sit in one aligned segment of one warp.
// Tuning constants (class scope, GroupQuantConfig):
//   kThreadsPerGroup = 16   lanes per group (warp-shuffle width)
//   kGroupsPerBlock  = 16   groups per block
//   kThreadsPerBlock = kThreadsPerGroup * kGroupsPerBlock = 256
//                           __launch_bounds__ and launch block
//   kVecSize = 16 / sizeof(T)  kernel-local constexpr, elements per load

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace ops {

enum class ScalarType : int { kFloat32 = 0, kFloat16 = 1, kBFloat16 = 2 };
enum class QuantType : int { kInt8 = 0, kFloat8E4M3 = 1 };

struct GroupQuantConfig {
  static constexpr int kThreadsPerGroup = 16;
  static constexpr int kGroupsPerBlock = 16;
  static constexpr int kThreadsPerBlock = kThreadsPerGroup * kGroupsPerBlock;
};

namespace {

template <typename T, int N> struct alignas(sizeof(T) * N) AlignedPack {
  T v[N];
};

__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) {
  return __bfloat162float(v);
}

template <typename OutT> __device__ __forceinline__ OutT to_8bit(float q);
template <> __device__ __forceinline__ int8_t to_8bit<int8_t>(float q) {
  return static_cast<int8_t>(__float2int_rn(q));
}
template <>
__device__ __forceinline__ __nv_fp8_e4m3 to_8bit<__nv_fp8_e4m3>(float q) {
  return __nv_fp8_e4m3(q);
}

} // namespace

template <typename T, typename OutT>
__global__ void __launch_bounds__(GroupQuantConfig::kThreadsPerBlock)
    per_token_group_quant_8bit_kernel(const T *__restrict__ input,
                                      OutT *__restrict__ output_q,
                                      float *__restrict__ output_s,
                                      const int group_size,
                                      const int64_t num_groups, const float eps,
                                      const float min_8bit,
                                      const float max_8bit) {
  constexpr int kVecSize = 16 / sizeof(T);
  using InPack = AlignedPack<T, kVecSize>;
  using OutPack = AlignedPack<OutT, kVecSize>;

  const int local_group = threadIdx.x / GroupQuantConfig::kThreadsPerGroup;
  const int lane = threadIdx.x % GroupQuantConfig::kThreadsPerGroup;
  const int64_t group =
      static_cast<int64_t>(blockIdx.x) * GroupQuantConfig::kGroupsPerBlock +
      local_group;
  // Lanes past the last group stay for the shuffles, with absmax 0.
  const bool active = group < num_groups;
  const T *src = input + group * group_size;
  OutT *dst = output_q + group * group_size;

  float absmax = 0.0f;
  if (active) {
    for (int i = lane * kVecSize; i < group_size;
         i += GroupQuantConfig::kThreadsPerGroup * kVecSize) {
      const InPack p = *reinterpret_cast<const InPack *>(src + i);
#pragma unroll
      for (int k = 0; k < kVecSize; ++k)
        absmax = fmaxf(absmax, fabsf(to_float(p.v[k])));
    }
  }
#pragma unroll
  for (int offset = GroupQuantConfig::kThreadsPerGroup / 2; offset > 0;
       offset >>= 1)
    absmax = fmaxf(absmax, __shfl_xor_sync(0xffffffffu, absmax, offset));
  if (!active)
    return;

  const float scale = fmaxf(absmax, eps) / max_8bit;
  if (lane == 0)
    output_s[group] = scale;

  // Second sweep over the same elements (now in L1/L2).
  for (int i = lane * kVecSize; i < group_size;
       i += GroupQuantConfig::kThreadsPerGroup * kVecSize) {
    const InPack p = *reinterpret_cast<const InPack *>(src + i);
    OutPack q;
#pragma unroll
    for (int k = 0; k < kVecSize; ++k) {
      const float v =
          fminf(fmaxf(to_float(p.v[k]) / scale, min_8bit), max_8bit);
      q.v[k] = to_8bit<OutT>(v);
    }
    *reinterpret_cast<OutPack *>(dst + i) = q;
  }
}

template <typename T, typename OutT>
static void
per_token_group_quant_8bit_impl(const T *input, OutT *output_q, float *output_s,
                                int num_tokens, int hidden, int group_size,
                                float eps, float min_8bit, float max_8bit,
                                cudaStream_t stream) {
  using Config = GroupQuantConfig;
  const int64_t num_groups =
      static_cast<int64_t>(num_tokens) * hidden / group_size;
  dim3 grid((num_groups + Config::kGroupsPerBlock - 1) /
            Config::kGroupsPerBlock);
  dim3 block(Config::kThreadsPerBlock);
  per_token_group_quant_8bit_kernel<T, OutT>
      <<<grid, block, 0, stream>>>(input, output_q, output_s, group_size,
                                   num_groups, eps, min_8bit, max_8bit);
}

template <typename T>
static void dispatch_output(const T *input, void *output_q, float *output_s,
                            int num_tokens, int hidden, int group_size,
                            float eps, QuantType out_type,
                            cudaStream_t stream) {
  switch (out_type) {
  case QuantType::kInt8:
    per_token_group_quant_8bit_impl(input, static_cast<int8_t *>(output_q),
                                    output_s, num_tokens, hidden, group_size,
                                    eps, -128.0f, 127.0f, stream);
    break;
  case QuantType::kFloat8E4M3:
    per_token_group_quant_8bit_impl(
        input, static_cast<__nv_fp8_e4m3 *>(output_q), output_s, num_tokens,
        hidden, group_size, eps, -448.0f, 448.0f, stream);
    break;
  }
}

/// Quantises input [num_tokens, hidden] per group of group_size elements.
/// Errors surface through cudaGetLastError().
void launch_per_token_group_quant_8bit(const void *input, void *output_q,
                                       float *output_s, int num_tokens,
                                       int hidden, int group_size, float eps,
                                       ScalarType in_type, QuantType out_type,
                                       cudaStream_t stream) {
  if (num_tokens == 0 || hidden == 0)
    return;
  switch (in_type) {
  case ScalarType::kBFloat16:
    dispatch_output(static_cast<const __nv_bfloat16 *>(input), output_q,
                    output_s, num_tokens, hidden, group_size, eps, out_type,
                    stream);
    break;
  case ScalarType::kFloat16:
    dispatch_output(static_cast<const __half *>(input), output_q, output_s,
                    num_tokens, hidden, group_size, eps, out_type, stream);
    break;
  case ScalarType::kFloat32:
    dispatch_output(static_cast<const float *>(input), output_q, output_s,
                    num_tokens, hidden, group_size, eps, out_type, stream);
    break;
  }
}

} // namespace ops
