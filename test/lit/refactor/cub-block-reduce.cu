// cub block-level templates: the block size of BlockReduce/BlockLoad and
// the items per thread of BlockLoad are sites, with the register arrays and
// loops sized by them.
// REQUIRES: clang, cuda-headers
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %inputs/refactor/summarize.py < %t/out.json | FileCheck %s --check-prefix=MANIFEST

#include <cub/block/block_load.cuh>
#include <cub/block/block_reduce.cuh>

__global__ void __launch_bounds__(256) sum_kernel(const float *in, float *out, int n) {
  using BlockReduce = cub::BlockReduce<float, 256>;
  __shared__ typename BlockReduce::TempStorage storage;
  float v = 0.0f;
  for (int i = blockIdx.x * 256 + threadIdx.x; i < n; i += 256 * gridDim.x)
    v += in[i];
  float total = BlockReduce(storage).Sum(v);
  if (threadIdx.x == 0)
    atomicAdd(out, total);
}

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
  sum_kernel<<<80, 256>>>(in, out, n);
  load_kernel<<<n / 512, 128>>>(in, out);
}

// CAND:      CAND block_size sum_kernel value=256 spelling=256 high
// CAND-NEXT:   SITE 15:35 launch_bounds '256' -> {P}
// CAND-NEXT:   SITE 16:47 cub_block_size '256' -> {P}
// CAND-NEXT:   SITE 19:29 index_arith '256' -> {P}
// CAND-NEXT:   SITE 19:60 loop_stride '256' -> {P}
// CAND-NEXT:   SITE 39:20 launch_block '256' -> {P}
// CAND-NEXT:   IMPLIES {block_size#0} <= 1024
// CAND-NEXT: CAND grid_size sum_kernel value=80 spelling=80 high launch-param
// CAND-NEXT:   SITE 39:16 launch_grid '80' -> {P}
// CAND-NEXT: CAND block_size load_kernel value=128 spelling=128 high
// CAND-NEXT:   SITE 27:38 cub_block_size '128' -> {P}
// CAND-NEXT:   SITE 30:40 index_arith '128' -> {P}
// CAND-NEXT:   SITE 35:20 index_arith '128' -> {P}
// CAND-NEXT:   SITE 40:26 launch_block '128' -> {P}
// CAND-NEXT:   IMPLIES {block_size#2} <= 1024
// CAND-NEXT: CAND items_per_thread load_kernel value=4 spelling=4 high
// CAND-NEXT:   SITE 27:43 cub_items_per_thread '4' -> {P}
// CAND-NEXT:   SITE 29:15 register_array '4' -> {P}
// CAND-NEXT:   SITE 30:46 index_arith '4' -> {P}
// CAND-NEXT:   SITE 33:23 loop_bound '4' -> {P}
// The cub algorithm enum and the grid's 80 are not sites.
// CAND-NOT:  BLOCK_LOAD
// CAND-NOT:  '80'

// TPL:      template <int BLOCK_SIZE = 256>
// TPL-NEXT: __global__ void __launch_bounds__(BLOCK_SIZE) sum_kernel(const float *in, float *out, int n) {
// TPL:        using BlockReduce = cub::BlockReduce<float, BLOCK_SIZE>;
// TPL:        for (int i = blockIdx.x * BLOCK_SIZE + threadIdx.x; i < n; i += BLOCK_SIZE * gridDim.x)
// TPL:      template <int BLOCK_SIZE = 128, int ITEMS_PER_THREAD = 4>
// TPL-NEXT: __global__ void load_kernel(const float *in, float *out) {
// TPL:        using Load = cub::BlockLoad<float, BLOCK_SIZE, ITEMS_PER_THREAD, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
// TPL:        float items[ITEMS_PER_THREAD];
// TPL-NEXT:   Load(storage).Load(in + blockIdx.x * BLOCK_SIZE * ITEMS_PER_THREAD, items);
// TPL:        for (int k = 0; k < ITEMS_PER_THREAD; ++k)
// TPL:        out[blockIdx.x * BLOCK_SIZE + threadIdx.x] = s;
// TPL:        sum_kernel<SUM_KERNEL_BLOCK_SIZE><<<GRID_SIZE, SUM_KERNEL_BLOCK_SIZE>>>(in, out, n);
// TPL-NEXT:   load_kernel<LOAD_KERNEL_BLOCK_SIZE, ITEMS_PER_THREAD><<<n / 512, LOAD_KERNEL_BLOCK_SIZE>>>(in, out);

// MANIFEST:      KERNEL sum_kernel
// MANIFEST:        LAUNCH grid=['GRID_SIZE'] block=['BLOCK_SIZE'] smem=0
// MANIFEST:      KERNEL load_kernel
// MANIFEST-NEXT:   PARAM BLOCK_SIZE int tunable block_size default=128
// MANIFEST-NEXT:   PARAM ITEMS_PER_THREAD int tunable items_per_thread default=4
