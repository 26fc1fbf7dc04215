// A launch helper taking the geometry in a struct built by a constructor.
#pragma once
#include <cstddef>
#include <utility>

namespace mylib {

struct launch_params {
  dim3 block_nums;
  dim3 block_dims;
  size_t shmem;
  cudaStream_t stream;
  launch_params(const dim3 &block_nums_, const dim3 &block_dims_,
                const size_t shmem_, const cudaStream_t stream_)
      : block_nums(block_nums_), block_dims(block_dims_), shmem(shmem_),
        stream(stream_) {}
  launch_params(const dim3 &block_nums_, const dim3 &block_dims_,
                const int shmem_, const cudaStream_t stream_)
      : block_nums(block_nums_), block_dims(block_dims_),
        shmem(static_cast<size_t>(shmem_)), stream(stream_) {}
};

template <typename Kernel, typename... Args>
static inline void kernel_launch(Kernel kernel, const launch_params &p,
                                 Args &&...args) {
  kernel<<<p.block_nums, p.block_dims, p.shmem, p.stream>>>(
      std::forward<Args>(args)...);
}

} // namespace mylib
