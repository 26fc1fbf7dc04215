// block_reduce.cu - sum of a float vector in a single launch.
//
//   out[0] = sum_i in[i]
//
// Every block folds a grid-stride slice of the input (four independent
// accumulators per thread keep four loads in flight) and reduces it with
// cub::BlockReduce into block_sums[blockIdx.x]. The last block to finish,
// found with an atomic ticket, folds the partials in a fixed order, writes
// the total, and clears block_sums and the ticket counter, so the next launch
// (or graph replay) needs no memset.
//
// Layout: in [n] float; out [1] float; block_sums [>= gridDim.x] float, zero
//         on entry and on exit; retire_count [1] uint32, zero on entry and
//         on exit.
// Launch: as many 256-thread blocks as the data needs, at most
//         kMaxBlocksPerSm per SM (the SM count is read on the host).
// Preconditions: block_sums holds at least num_SMs * kMaxBlocksPerSm floats;
//         block_sums and retire_count are zeroed once before first use.
// Tuning constants:
//   256 (literal)          cub::BlockReduce size, __launch_bounds__, the
//                          grid-stride step, the launch block, and the
//                          (n + 255) / 256 block count
//   kItemsPerThread = 4    kernel-local constexpr: accumulators per thread
//   kMaxBlocksPerSm = 8    namespace-scope constexpr: cap on the grid

#include <cub/block/block_reduce.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

namespace ops {

/// Resident blocks per SM at 256 threads (2048 threads per SM).
constexpr int kMaxBlocksPerSm = 8;

__global__ void __launch_bounds__(256)
    block_reduce_sum_kernel(const float *__restrict__ in,
                            float *__restrict__ out,
                            float *__restrict__ block_sums,
                            unsigned int *__restrict__ retire_count,
                            const int64_t n) {
  constexpr int kItemsPerThread = 4;
  using BlockReduce = cub::BlockReduce<float, 256>;
  __shared__ typename BlockReduce::TempStorage temp_storage;
  __shared__ bool is_last_block;

  const int64_t stride = static_cast<int64_t>(256) * gridDim.x;
  int64_t i = static_cast<int64_t>(blockIdx.x) * 256 + threadIdx.x;
  float acc[kItemsPerThread];
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k)
    acc[k] = 0.0f;
  for (; i + (kItemsPerThread - 1) * stride < n;
       i += kItemsPerThread * stride) {
#pragma unroll
    for (int k = 0; k < kItemsPerThread; ++k)
      acc[k] += in[i + k * stride];
  }
  for (; i < n; i += stride)
    acc[0] += in[i];
  float thread_sum = 0.0f;
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k)
    thread_sum += acc[k];

  // The aggregate is valid in thread 0 only.
  const float block_sum = BlockReduce(temp_storage).Sum(thread_sum);
  if (threadIdx.x == 0) {
    block_sums[blockIdx.x] = block_sum;
    __threadfence(); // publish the partial before taking a ticket
    const unsigned int ticket = atomicAdd(retire_count, 1u);
    is_last_block = ticket == gridDim.x - 1;
    if (is_last_block)
      __threadfence(); // see every other block's partial
  }
  __syncthreads();
  if (!is_last_block)
    return;

  // Volatile loads bypass L1, which may hold stale lines of block_sums.
  const volatile float *partials = block_sums;
  float partial = 0.0f;
  for (int b = threadIdx.x; b < static_cast<int>(gridDim.x); b += 256) {
    partial += partials[b];
    block_sums[b] = 0.0f;
  }
  __syncthreads(); // temp_storage is reused
  const float total = BlockReduce(temp_storage).Sum(partial);
  if (threadIdx.x == 0) {
    *out = total;
    *retire_count = 0u;
  }
}

/// out[0] = sum(in[0..n)). block_sums needs num_SMs * kMaxBlocksPerSm floats;
/// it and retire_count must be zeroed once before the first launch. Errors
/// surface through cudaGetLastError().
void launch_block_reduce(const float *in, float *out, float *block_sums,
                         unsigned int *retire_count, int64_t n,
                         cudaStream_t stream) {
  int device = 0;
  int num_sms = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&num_sms, cudaDevAttrMultiProcessorCount, device);
  const int64_t max_blocks = static_cast<int64_t>(num_sms) * kMaxBlocksPerSm;
  const int grid = static_cast<int>(
      std::max<int64_t>(1, std::min<int64_t>((n + 255) / 256, max_blocks)));
  block_reduce_sum_kernel<<<grid, 256, 0, stream>>>(in, out, block_sums,
                                                    retire_count, n);
}

} // namespace ops
