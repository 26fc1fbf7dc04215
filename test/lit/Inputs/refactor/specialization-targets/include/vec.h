// jetson-utils' cudaVector.h shape: a __device__ primary template that only
// fails, and __host__ __device__ explicit specialisations, which nvcc
// matches to it and Clang does not ("target attributes do not match").
#pragma once
#include <cuda_runtime.h>

template <typename T> struct always_false { static const bool value = false; };

template <typename T>
inline __device__ T alpha(T v, T fallback = 255) {
  static_assert(always_false<T>::value, "unsupported type");
}

template <> inline __host__ __device__ float alpha(float v, float fallback) {
  return v > 0.0f ? v : fallback;
}
