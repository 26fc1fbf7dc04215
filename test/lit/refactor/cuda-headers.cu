// Kernels that include cuda_fp16.h, cuda_bf16.h, cub and cooperative_groups
// parse on both sides (CUDA 13 headers with Clang 19).
// REQUIRES: clang, cuda-headers
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py | FileCheck %s

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cub/cub.cuh>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace cg = cooperative_groups;

__global__ void __launch_bounds__(256) mixed(__nv_bfloat16 *out,
                                             const __half *in, int n) {
  cg::thread_block block = cg::this_thread_block();
  auto warp = cg::tiled_partition<32>(block);
  using BlockReduce = cub::BlockReduce<float, 256>;
  __shared__ typename BlockReduce::TempStorage storage;
  int i = blockIdx.x * 256 + threadIdx.x;
  float v = i < n ? __half2float(in[i]) : 0.0f;
  v = cg::reduce(warp, v, cg::plus<float>());
  float total = BlockReduce(storage).Sum(v);
  block.sync();
  if (i < n)
    out[i] = __float2bfloat16(total);
}

void launch(__nv_bfloat16 *out, const __half *in, int n) {
  mixed<<<(n + 255) / 256, 256>>>(out, in, n);
}

// CHECK:      CAND block_size mixed value=256 spelling=256 high
// CHECK-NEXT:   SITE 14:35 launch_bounds '256' -> {P}
// CHECK-NEXT:   SITE 18:47 cub_block_size '256' -> {P}
// CHECK-NEXT:   SITE 20:24 index_arith '256' -> {P}
// CHECK-NEXT:   SITE 30:16 launch_grid '255' -> {P} - 1
// CHECK-NEXT:   SITE 30:23 launch_grid '256' -> {P}
// CHECK-NEXT:   SITE 30:28 launch_block '256' -> {P}
// The warp tile (32) is hardware, not a knob; cooperative groups' reduce is
// warp-level code, hence the multiple of 32.
// CHECK:        IMPLIES {block_size#0} % 32 == 0
// CHECK-NOT:  CAND
