// A header library whose entry points launch nothing themselves: each calls
// a launcher in a detail namespace (one from a template, with dependent
// arguments). src/use_entry.cu calls the entry points.
#pragma once

namespace mylib {

__global__ void axpy_kernel(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] += a * x[i];
}

namespace detail {
inline void launch_axpy(float a, const float *x, float *y, int n) {
  const int threads = 128;
  axpy_kernel<<<(n + threads - 1) / threads, threads>>>(a, x, y, n);
}

inline void launch_axpy_wide(float a, const float *x, float *y, int n) {
  const int threads = 512;
  axpy_kernel<<<(n + threads - 1) / threads, threads>>>(a, x, y, n);
}
} // namespace detail

inline void axpy(float a, const float *x, float *y, int n) {
  detail::launch_axpy(a, x, y, n);
}

template <typename T> void axpy_wide(T a, const T *x, T *y, int n) {
  detail::launch_axpy_wide(a, x, y, n);
}

} // namespace mylib
