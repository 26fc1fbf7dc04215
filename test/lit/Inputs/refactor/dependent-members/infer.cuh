#pragma once
#include <cuda_runtime.h>
#include "convert.cuh"

template <typename T> __global__ void clear_kernel(T *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = T(0);
}

// An inference engine whose sizes are template arguments; its members
// launch, and call the conversion helpers through overloads chosen by T.
template <typename T, int R = 64> class Infer {
public:
  explicit Infer(T *state, int n) : m_state(state), m_n(n) {}
  void reset() { clear_kernel<<<(m_n + 127) / 128, 128>>>(m_state, m_n); }
  void setInputs(const float *src) { setState(m_state, src, m_n); }

private:
  void setState(float *dst, const float *src, size_t n) {
    cudaMemcpy(dst, src, n * sizeof(float), cudaMemcpyDefault);
  }
  void setState(half *dst, const float *src, size_t n) { to_half(dst, src, n); }
  T *m_state;
  int m_n;
};
