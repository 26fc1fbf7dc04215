// Benchmark input for bench/refactor_speed.sh: a ~300-line file of the
// kind ktune-refactor is run on (bf16 element-wise ops, cub block
// reductions, a tiled transpose, a softmax), including cuda_bf16.h and cub.

#include <cub/cub.cuh>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

namespace bench {

constexpr int kNormThreads = 256;
constexpr int kSoftmaxThreads = 128;
#define TRANSPOSE_TILE 32
#define TRANSPOSE_ROWS 8

template <typename T, int N> struct alignas(sizeof(T) * N) Pack {
  T v[N];
};

__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) {
  return __bfloat162float(v);
}
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }

template <typename T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ float from_float<float>(float v) {
  return v;
}
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}
template <> __device__ __forceinline__ __half from_float<__half>(float v) {
  return __float2half_rn(v);
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1)
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}

// RMSNorm over the hidden dimension, one token per block.
template <typename T>
__global__ void __launch_bounds__(kNormThreads)
    rms_norm_kernel(T *__restrict__ out, const T *__restrict__ in,
                    const T *__restrict__ weight, int hidden, float eps) {
  using BlockReduce = cub::BlockReduce<float, kNormThreads>;
  __shared__ typename BlockReduce::TempStorage storage;
  __shared__ float inv_rms;
  const T *row = in + static_cast<int64_t>(blockIdx.x) * hidden;
  T *dst = out + static_cast<int64_t>(blockIdx.x) * hidden;
  float sum = 0.0f;
  for (int i = threadIdx.x; i < hidden; i += kNormThreads) {
    float v = to_float(row[i]);
    sum += v * v;
  }
  float total = BlockReduce(storage).Sum(sum);
  if (threadIdx.x == 0)
    inv_rms = rsqrtf(total / hidden + eps);
  __syncthreads();
  for (int i = threadIdx.x; i < hidden; i += kNormThreads)
    dst[i] = from_float<T>(to_float(row[i]) * inv_rms * to_float(weight[i]));
}

// SiLU(gate) * up, vectorised 16-byte packs.
template <typename T>
__global__ void silu_mul_kernel(T *__restrict__ out, const T *__restrict__ in,
                                int d) {
  constexpr int kVec = 16 / sizeof(T);
  using P = Pack<T, kVec>;
  const int64_t token = blockIdx.x;
  const T *gate = in + token * 2 * d;
  const T *up = gate + d;
  T *dst = out + token * d;
  const int packs = d / kVec;
  for (int p = threadIdx.x; p < packs; p += blockDim.x) {
    P g = reinterpret_cast<const P *>(gate)[p];
    P u = reinterpret_cast<const P *>(up)[p];
    P r;
#pragma unroll
    for (int k = 0; k < kVec; ++k) {
      float x = to_float(g.v[k]);
      r.v[k] = from_float<T>(x / (1.0f + __expf(-x)) * to_float(u.v[k]));
    }
    reinterpret_cast<P *>(dst)[p] = r;
  }
}

// Row softmax with warp reductions and a shared partial per warp.
__global__ void __launch_bounds__(kSoftmaxThreads)
    softmax_kernel(float *__restrict__ out, const float *__restrict__ in,
                   int cols) {
  __shared__ float partial[kSoftmaxThreads / 32];
  const float *row = in + static_cast<int64_t>(blockIdx.x) * cols;
  float *dst = out + static_cast<int64_t>(blockIdx.x) * cols;
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  float m = -INFINITY;
#pragma unroll 4
  for (int i = threadIdx.x; i < cols; i += kSoftmaxThreads)
    m = fmaxf(m, row[i]);
  m = warp_max(m);
  if (lane == 0)
    partial[warp] = m;
  __syncthreads();
  if (threadIdx.x < 32) {
    float v = threadIdx.x < kSoftmaxThreads / 32 ? partial[threadIdx.x]
                                                  : -INFINITY;
    v = warp_max(v);
    if (threadIdx.x == 0)
      partial[0] = v;
  }
  __syncthreads();
  m = partial[0];
  __syncthreads();
  float s = 0.0f;
#pragma unroll 4
  for (int i = threadIdx.x; i < cols; i += kSoftmaxThreads)
    s += __expf(row[i] - m);
  s = warp_sum(s);
  if (lane == 0)
    partial[warp] = s;
  __syncthreads();
  if (threadIdx.x < 32) {
    float v = threadIdx.x < kSoftmaxThreads / 32 ? partial[threadIdx.x] : 0.0f;
    v = warp_sum(v);
    if (threadIdx.x == 0)
      partial[0] = v;
  }
  __syncthreads();
  const float inv = 1.0f / partial[0];
#pragma unroll 4
  for (int i = threadIdx.x; i < cols; i += kSoftmaxThreads)
    dst[i] = __expf(row[i] - m) * inv;
}

// Tiled transpose through padded shared memory.
__global__ void transpose_kernel(float *__restrict__ out,
                                 const float *__restrict__ in, int rows,
                                 int cols) {
  __shared__ float tile[TRANSPOSE_TILE][TRANSPOSE_TILE + 1];
  int x = blockIdx.x * TRANSPOSE_TILE + threadIdx.x;
  int y = blockIdx.y * TRANSPOSE_TILE + threadIdx.y;
  for (int j = 0; j < TRANSPOSE_TILE; j += TRANSPOSE_ROWS)
    if (x < cols && y + j < rows)
      tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * TRANSPOSE_TILE + threadIdx.x;
  y = blockIdx.x * TRANSPOSE_TILE + threadIdx.y;
  for (int j = 0; j < TRANSPOSE_TILE; j += TRANSPOSE_ROWS)
    if (x < rows && y + j < cols)
      out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

// Block-wide sum of a vector, one partial per block.
__global__ void __launch_bounds__(512)
    partial_sum_kernel(const float *__restrict__ in, float *__restrict__ partials,
                       int64_t n) {
  using BlockReduce = cub::BlockReduce<float, 512>;
  __shared__ typename BlockReduce::TempStorage storage;
  float acc = 0.0f;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * 512 + threadIdx.x; i < n;
       i += static_cast<int64_t>(512) * gridDim.x)
    acc += in[i];
  float total = BlockReduce(storage).Sum(acc);
  if (threadIdx.x == 0)
    partials[blockIdx.x] = total;
}

// LayerNorm with a residual add: two cub block reductions per row.
template <typename T>
__global__ void __launch_bounds__(512)
    add_layer_norm_kernel(T *__restrict__ out, T *__restrict__ residual,
                          const T *__restrict__ in,
                          const T *__restrict__ gamma,
                          const T *__restrict__ beta, int hidden, float eps) {
  using BlockReduce = cub::BlockReduce<float, 512>;
  __shared__ typename BlockReduce::TempStorage storage;
  __shared__ float mean, inv_std;
  const int64_t base = static_cast<int64_t>(blockIdx.x) * hidden;
  float sum = 0.0f;
  for (int i = threadIdx.x; i < hidden; i += 512) {
    float v = to_float(in[base + i]) + to_float(residual[base + i]);
    residual[base + i] = from_float<T>(v);
    sum += v;
  }
  float total = BlockReduce(storage).Sum(sum);
  if (threadIdx.x == 0)
    mean = total / hidden;
  __syncthreads();
  float var = 0.0f;
  for (int i = threadIdx.x; i < hidden; i += 512) {
    float d = to_float(residual[base + i]) - mean;
    var += d * d;
  }
  float total_var = BlockReduce(storage).Sum(var);
  if (threadIdx.x == 0)
    inv_std = rsqrtf(total_var / hidden + eps);
  __syncthreads();
  for (int i = threadIdx.x; i < hidden; i += 512) {
    float v = (to_float(residual[base + i]) - mean) * inv_std;
    out[base + i] =
        from_float<T>(v * to_float(gamma[i]) + to_float(beta[i]));
  }
}

// bf16 scaled add with a grid-stride loop.
__global__ void scaled_add_kernel(__nv_bfloat16 *__restrict__ y,
                                  const __nv_bfloat16 *__restrict__ x,
                                  float alpha, int64_t n) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * 256 + threadIdx.x; i < n;
       i += static_cast<int64_t>(256) * gridDim.x) {
    float v = __bfloat162float(y[i]) + alpha * __bfloat162float(x[i]);
    y[i] = __float2bfloat16_rn(v);
  }
}

template <typename T>
void rms_norm(T *out, const T *in, const T *weight, int tokens, int hidden,
              float eps, cudaStream_t stream) {
  rms_norm_kernel<T><<<tokens, kNormThreads, 0, stream>>>(out, in, weight,
                                                          hidden, eps);
}

template <typename T>
void silu_mul(T *out, const T *in, int tokens, int d, cudaStream_t stream) {
  const int vec = 16 / sizeof(T);
  dim3 block(std::min(std::max(d / vec, 32), 1024));
  silu_mul_kernel<T><<<tokens, block, 0, stream>>>(out, in, d);
}

void softmax(float *out, const float *in, int rows, int cols,
             cudaStream_t stream) {
  softmax_kernel<<<rows, kSoftmaxThreads, 0, stream>>>(out, in, cols);
}

void transpose(float *out, const float *in, int rows, int cols,
               cudaStream_t stream) {
  dim3 block(TRANSPOSE_TILE, TRANSPOSE_ROWS);
  dim3 grid((cols + TRANSPOSE_TILE - 1) / TRANSPOSE_TILE,
            (rows + TRANSPOSE_TILE - 1) / TRANSPOSE_TILE);
  transpose_kernel<<<grid, block, 0, stream>>>(out, in, rows, cols);
}

void partial_sum(const float *in, float *partials, int64_t n, int blocks,
                 cudaStream_t stream) {
  partial_sum_kernel<<<blocks, 512, 0, stream>>>(in, partials, n);
}

void scaled_add(__nv_bfloat16 *y, const __nv_bfloat16 *x, float alpha,
                int64_t n, cudaStream_t stream) {
  const int blocks = static_cast<int>(std::min<int64_t>((n + 255) / 256, 4096));
  scaled_add_kernel<<<blocks, 256, 0, stream>>>(y, x, alpha, n);
}

template <typename T>
void add_layer_norm(T *out, T *residual, const T *in, const T *gamma,
                    const T *beta, int tokens, int hidden, float eps,
                    cudaStream_t stream) {
  add_layer_norm_kernel<T><<<tokens, 512, 0, stream>>>(
      out, residual, in, gamma, beta, hidden, eps);
}

void run_all(__nv_bfloat16 *a, __nv_bfloat16 *b, const __nv_bfloat16 *w,
             float *f, float *g, int tokens, int hidden, cudaStream_t s) {
  rms_norm(a, b, w, tokens, hidden, 1e-6f, s);
  silu_mul(a, b, tokens, hidden / 2, s);
  softmax(f, g, tokens, hidden, s);
  transpose(f, g, tokens, hidden, s);
  partial_sum(g, f, static_cast<int64_t>(tokens) * hidden, 132, s);
  scaled_add(a, b, 0.5f, static_cast<int64_t>(tokens) * hidden, s);
  add_layer_norm(a, b, b, w, w, tokens, hidden, 1e-5f, s);
}

} // namespace bench
