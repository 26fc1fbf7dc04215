#include "pool.h"

#if __CUDACC__
#define POOL_DEVICE __device__
#endif
#ifndef __CUDACC_EXTENDED_LAMBDA__
#error "Support for extended device lambdas is required"
#endif

// Clang wants `template` before a dependent member template; nvcc does not.
template <typename S> using FloatStorage = typename S::rebind<float>;

template <typename T> __global__ void fill_kernel(T *x, int n, T value) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = value;
}

template <typename T> __global__ void scale_kernel(T *x, int n, T factor) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= factor;
}

template <typename T> void Pool<T>::fill(T *x, int n, T value) {
  fill_kernel<T><<<(n + 255) / 256, 256>>>(x, n, value);
}

template <typename T> struct Local {
  void scale(T *x, int n, T factor);
};

template <typename T> void Local<T>::scale(T *x, int n, T factor) {
  scale_kernel<T><<<(n + 127) / 128, 128>>>(x, n, factor);
}

template <typename T> void Pool<T>::scale(T *x, int n, T factor) {
  Local<T>().scale(x, n, factor);
}

template class Pool<float>;
