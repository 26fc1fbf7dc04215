// A header library's public header: the class, its members defined in a
// detail header included at the end (which includes this one back).
#pragma once
#include <cuda_runtime.h>
#include <cstdint>
#include <hlib/detail/kernels.cuh>

namespace hlib {
template <typename T>
struct table {
  explicit table(T *slots, int capacity) : slots(slots), capacity(capacity) {}
  template <typename InputIt>
  void insert(InputIt first, InputIt last, cudaStream_t stream = 0);
  void clear(cudaStream_t stream = 0);
  T *slots;
  int capacity;
};
} // namespace hlib

#include <hlib/detail/table_impl.cuh>
