// A constant whose value depends on __CUDA_ARCH__ (defined under an #if on
// it, or different on the host and the device side) is never lifted with
// one default: it stays as written, with a note. The rest of the kernel is
// still tuned, and the default instantiation compiles to the original's
// PTX on sm_90, where the device value differs from the host's.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates -- -I%inputs/refactor 2> %t/notes.txt | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: FileCheck %s --check-prefix=NOTE < %t/notes.txt
// RUN: ktune-refactor %s -o %t/out.cu -- -I%inputs/refactor 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL

#if __CUDA_ARCH__ == 800 || __CUDA_ARCH__ >= 900
#define MAX_BLOCKS 2
#else
#define MAX_BLOCKS 1
#endif

#ifdef __CUDA_ARCH__
constexpr int kItems = 8;
#else
constexpr int kItems = 4;
#endif

// Defined from an arch-dependent macro: arch-dependent too.
#define MIN_BLOCKS_PER_SM MAX_BLOCKS

// An #if on a flag the device side defines elsewhere: the scan of this
// file cannot tell, but the two sides see different values.
#include "arch_flag.h"
#ifdef ON_DEVICE
#define UNROLL 8
#else
#define UNROLL 4
#endif

// An #if on something else: an ordinary constant.
#ifndef TILE
#define TILE 64
#endif

__global__ void __launch_bounds__(1024, MAX_BLOCKS) fill(float *x, int n) {
  int i = blockIdx.x * 1024 + threadIdx.x;
  if (i < n)
    x[i] = 1.0f;
}

__global__ void __launch_bounds__(256, MIN_BLOCKS_PER_SM) items(float *x) {
  float r[kItems];
#pragma unroll
  for (int j = 0; j < kItems; ++j)
    r[j] = x[threadIdx.x * kItems + j];
  float acc[UNROLL];
  for (int j = 0; j < UNROLL; ++j)
    acc[j] = r[j % kItems];
  __shared__ float tile[TILE];
  tile[threadIdx.x % TILE] = r[0];
  __syncthreads();
  x[threadIdx.x] = tile[(threadIdx.x + 1) % TILE] + acc[UNROLL - 1];
}

void launch(float *x, int n) {
  fill<<<(n + 1023) / 1024, 1024>>>(x, n);
  items<<<n / (256 * kItems), 256>>>(x);
}

// CAND-NOT:  spelling=MAX_BLOCKS
// CAND-NOT:  spelling=MIN_BLOCKS_PER_SM
// CAND-NOT:  spelling=kItems
// CAND-NOT:  spelling=UNROLL
// CAND:      CAND block_size fill value=1024 spelling=1024 high
// CAND:      CAND block_size items value=256 spelling=256 high
// CAND:      CAND tile_size items value=64 spelling=TILE high
// CAND-NOT:  spelling=MAX_BLOCKS
// CAND-NOT:  spelling=kItems
// CAND-NOT:  spelling=UNROLL

// NOTE-DAG: note: {{.*}}arch-divergent-constants.cu:14:1: MAX_BLOCKS depends on __CUDA_ARCH__ (defined under this #if): not lifted
// NOTE-DAG: note: {{.*}}arch-divergent-constants.cu:14:1: MIN_BLOCKS_PER_SM depends on __CUDA_ARCH__ (defined under this #if): not lifted
// NOTE-DAG: note: {{.*}}arch-divergent-constants.cu:20:1: kItems depends on __CUDA_ARCH__ (defined under this #if): not lifted
// NOTE-DAG: note: {{.*}}arch-divergent-constants.cu:[[#]]:{{[0-9]+}}: UNROLL is 4 on the host and 8 on the device: not lifted
// NOTE-NOT: TILE

// TPL:      template <int BLOCK_SIZE = 1024>
// TPL-NEXT: __global__ void __launch_bounds__(BLOCK_SIZE, MAX_BLOCKS) fill(float *x, int n) {
// TPL:      template <int BLOCK_SIZE = 256, int ITEMS_TILE = 64>
// TPL-NEXT: __global__ void __launch_bounds__(BLOCK_SIZE, MIN_BLOCKS_PER_SM) items(float *x) {
// TPL:        float r[kItems];
// TPL:        float acc[UNROLL];
// TPL:        items<ITEMS_BLOCK_SIZE, ITEMS_TILE><<<n / (ITEMS_BLOCK_SIZE * kItems), ITEMS_BLOCK_SIZE>>>(x);
