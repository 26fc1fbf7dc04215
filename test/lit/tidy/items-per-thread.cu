// ktune-items-per-thread: the items per thread of cub::BlockLoad, coupled
// with the register array and the loop over it.
// REQUIRES: clang-tidy, cuda-headers
// RUN: %check_ktune_tidy %s ktune-items-per-thread %t

#include <cub/block/block_load.cuh>

__global__ void load_kernel(const float *in, float *out) {
  using Load = cub::BlockLoad<float, 128, 4, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  __shared__ typename Load::TempStorage storage;
  float items[4];
  Load(storage).Load(in + blockIdx.x * 128 * 4, items);
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < 4; ++k)
    s += items[k];
  out[blockIdx.x * 128 + threadIdx.x] = s;
}

void launch(const float *in, float *out, int n) {
  load_kernel<<<n / 512, 128>>>(in, out);
}

// CHECK-MESSAGES: .cu:9:43: warning: hardcoded items per thread 4 in kernel 'load_kernel' (4 sites); lift it to a template parameter [ktune-items-per-thread]
// CHECK-MESSAGES: .cu:11:15: note: '4' here changes with it (register array extent)
// CHECK-MESSAGES: .cu:12:46: note: '4' here changes with it (index arithmetic)
// CHECK-MESSAGES: .cu:15:23: note: '4' here changes with it (loop bound)
// CHECK-MESSAGES: .cu:9:43: note: fix lifts it to template parameter 'ITEMS_PER_THREAD' = 4
// CHECK-FIXES: using Load = cub::BlockLoad<float, 128, ITEMS_PER_THREAD, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
// CHECK-FIXES: float items[ITEMS_PER_THREAD];
// CHECK-FIXES: for (int k = 0; k < ITEMS_PER_THREAD; ++k)
