#pragma once
#include <hlib/table.hpp>

namespace hlib {
template <typename T>
template <typename InputIt>
void table<T>::insert(InputIt first, InputIt last, cudaStream_t stream) {
  const auto n = last - first;
  const uint32_t block_size = 128;
  const uint32_t num_blocks = (n + block_size - 1) / block_size;
  detail::insert_kernel<<<num_blocks, block_size, 0, stream>>>(first, last, *this);
}

template <typename T>
void table<T>::clear(cudaStream_t stream) {
  const int block_size = 256;
  detail::clear_kernel<<<(capacity + block_size - 1) / block_size, block_size, 0, stream>>>(slots,
                                                                                            capacity);
}
} // namespace hlib
