// silu_and_mul.tpl.cu - hand-written tunable template of ../silu_and_mul.cu
// (device code only; compiles with NVRTC given -I<cuda>/include).
//
//   out[t, i] = silu(input[t, i]) * input[t, d + i],   silu(x) = x / (1 + e^-x)
//
// Layout: input [num_tokens, 2 * d], out [num_tokens, d], row-major;
//         T = __nv_bfloat16, __half or float.
// Launch (see silu_and_mul.tpl.json): grid = num_tokens, block = BLOCK_SIZE.
// Parameters:
//   BLOCK_SIZE  threads per block (one block per token)
//   VEC         elements per vector load/store (a pack of VEC * sizeof(T)
//               bytes; 8 is 16 bytes for 16-bit T)
//   UNROLL      packs each thread loads before it computes, for more bytes
//               in flight
// Preconditions: out and input aligned to VEC * sizeof(T) bytes. When d is
//   not a multiple of VEC the rows are not pack-aligned and the kernel takes
//   its scalar path.

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace ops {
namespace detail {

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

} // namespace detail

template <typename T, int BLOCK_SIZE = 256, int VEC = 8, int UNROLL = 1>
__global__ void __launch_bounds__(BLOCK_SIZE)
    silu_and_mul_kernel(T *__restrict__ out, const T *__restrict__ input,
                        const int d) {
  using detail::from_float;
  using detail::silu;
  using detail::to_float;
  using Pack = detail::AlignedPack<T, VEC>;

  const long long token = blockIdx.x;
  const T *gate = input + token * 2 * d;
  const T *up = gate + d;
  T *dst = out + token * d;

  if (d % VEC != 0) {
    for (int i = threadIdx.x; i < d; i += BLOCK_SIZE)
      dst[i] = from_float<T>(silu(to_float(gate[i])) * to_float(up[i]));
    return;
  }

  const Pack *gate_packs = reinterpret_cast<const Pack *>(gate);
  const Pack *up_packs = reinterpret_cast<const Pack *>(up);
  Pack *dst_packs = reinterpret_cast<Pack *>(dst);
  const int num_packs = d / VEC;

  int p = threadIdx.x;
  // Full rounds: UNROLL packs per thread, all loads issued before any math.
  for (; p + (UNROLL - 1) * BLOCK_SIZE < num_packs; p += UNROLL * BLOCK_SIZE) {
    Pack g[UNROLL], u[UNROLL];
#pragma unroll
    for (int k = 0; k < UNROLL; ++k) {
      g[k] = gate_packs[p + k * BLOCK_SIZE];
      u[k] = up_packs[p + k * BLOCK_SIZE];
    }
#pragma unroll
    for (int k = 0; k < UNROLL; ++k) {
      Pack r;
#pragma unroll
      for (int i = 0; i < VEC; ++i)
        r.v[i] = from_float<T>(silu(to_float(g[k].v[i])) * to_float(u[k].v[i]));
      dst_packs[p + k * BLOCK_SIZE] = r;
    }
  }
  // Remainder: fewer than UNROLL packs left for this thread.
  for (; p < num_packs; p += BLOCK_SIZE) {
    const Pack g = gate_packs[p];
    const Pack u = up_packs[p];
    Pack r;
#pragma unroll
    for (int i = 0; i < VEC; ++i)
      r.v[i] = from_float<T>(silu(to_float(g.v[i])) * to_float(u.v[i]));
    dst_packs[p] = r;
  }
}

} // namespace ops
