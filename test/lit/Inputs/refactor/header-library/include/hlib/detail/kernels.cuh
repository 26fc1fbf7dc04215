#pragma once

namespace hlib::detail {
template <typename InputIt, typename Table>
__global__ void insert_kernel(InputIt first, InputIt last, Table t) {
  auto i = blockIdx.x * blockDim.x + threadIdx.x;
  if (first + i < last)
    t.slots[first[i] % t.capacity] = first[i];
}
template <typename T>
__global__ void clear_kernel(T *slots, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    slots[i] = T(0);
}
} // namespace hlib::detail
