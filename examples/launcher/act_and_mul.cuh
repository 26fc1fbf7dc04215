// act_and_mul.cuh: a gated activation over [num_tokens, 2 * d] rows, written
// the way production inference libraries write it. One block per token; the
// kernel walks the row with a stride of blockDim.x, so its block size is a
// choice of the host code that launches it, not of the kernel.
#pragma once

// Kernel code only: it compiles with NVRTC as well as nvcc.
#include <cuda_bf16.h>

namespace demo {
namespace activation {

__device__ __forceinline__ float silu(const float &x) {
  return x / (1.0f + __expf(-x));
}

/// 16 bytes of T, loaded and stored as one vector, computed in float.
template <typename T> struct Pack16 {
  static constexpr unsigned size = 16 / sizeof(T);
  float v[size];

  __device__ __forceinline__ void load(const T *p) {
    uint4 raw = *reinterpret_cast<const uint4 *>(p);
    const T *e = reinterpret_cast<const T *>(&raw);
#pragma unroll
    for (unsigned i = 0; i < size; ++i)
      v[i] = static_cast<float>(e[i]);
  }
  __device__ __forceinline__ void store(T *p) const {
    uint4 raw;
    T *e = reinterpret_cast<T *>(&raw);
#pragma unroll
    for (unsigned i = 0; i < size; ++i)
      e[i] = static_cast<T>(v[i]);
    *reinterpret_cast<uint4 *>(p) = raw;
  }
};

/// out[t, i] = Activation(input[t, i]) * input[t, d + i]. 16-byte vectors
/// over the row, then the scalar tail past the last whole stride.
template <typename T, float (*Activation)(const float &)>
__global__ void act_and_mul_kernel(T *__restrict__ out,
                                   const T *__restrict__ input, const int d) {
  constexpr unsigned vec = Pack16<T>::size;
  const long long token = blockIdx.x;
  const long long tid = threadIdx.x;
  const long long stride = blockDim.x;
  const long long row = token * 2 * d;

#if (__CUDACC_VER_MAJOR__ >= 12 && defined(__CUDA_ARCH__) &&                   \
     (__CUDA_ARCH__ >= 900))
  asm volatile("griddepcontrol.wait;");
#endif

#pragma unroll 1
  for (unsigned i = tid; i < d / vec; i += stride) {
    Pack16<T> x, y, o;
    x.load(input + row + i * vec);
    y.load(input + row + d + i * vec);
#pragma unroll
    for (unsigned k = 0; k < vec; ++k)
      o.v[k] = Activation(x.v[k]) * y.v[k];
    o.store(out + token * d + i * vec);
  }

  const long long tail = d - d % (stride * vec);
#pragma unroll 1
  for (long long i = tid; i < d % (stride * vec); i += stride) {
    float x = static_cast<float>(input[row + tail + i]);
    float y = static_cast<float>(input[row + tail + d + i]);
    out[token * d + tail + i] = static_cast<T>(Activation(x) * y);
  }

#if (__CUDACC_VER_MAJOR__ >= 12 && defined(__CUDA_ARCH__) &&                   \
     (__CUDA_ARCH__ >= 900))
  asm volatile("griddepcontrol.launch_dependents;");
#endif
}

} // namespace activation
} // namespace demo
