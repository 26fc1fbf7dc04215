// Literal sites are linked by role, not by value: an equal literal in
// another role or another kernel is never a site (only noted in 'why').
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %inputs/refactor/summarize.py < %t/out.json | FileCheck %s --check-prefix=MANIFEST
// RUN: ktune-refactor %s --candidates | FileCheck %s --check-prefix=WHY

__global__ void histogram(const int *in, int *bins, int n) {
  __shared__ int local[64];
  int i = blockIdx.x * 128 + threadIdx.x;
  if (threadIdx.x < 64)
    local[threadIdx.x] = 0;
  __syncthreads();
  if (i < n)
    atomicAdd(&local[in[i] % 64], 1);
  __syncthreads();
  // Equal values in other roles are not the block size.
  int scaled = in[i] * 128;
  int masked = in[i] & 128;
  if (threadIdx.x < 64)
    atomicAdd(&bins[threadIdx.x], local[threadIdx.x] + (scaled > masked));
}

// A kernel that is never launched still has its own candidates, and the
// launch literal of another kernel is never one of them.
__global__ void other(float *x) {
  for (int i = threadIdx.x; i < 1024; i += 128)
    x[i] = 0;
}

void launch_histogram(const int *in, int *bins, int n) {
  histogram<<<(n + 127) / 128, 128>>>(in, bins, n);
  float scale = 128.0f;
  (void)scale;
}

// CAND:      CAND tile_size histogram value=64 spelling=64 low
// CAND-NEXT:   SITE 13:24 shared_extent '64' -> {P}
// CAND-NEXT:   IMPLIES 4 * {tile_size#0} <= 49152
// CAND-NEXT: CAND block_size histogram value=128 spelling=128 high
// CAND-NEXT:   SITE 14:24 index_arith '128' -> {P}
// CAND-NEXT:   SITE 36:20 launch_grid '127' -> {P} - 1
// CAND-NEXT:   SITE 36:27 launch_grid '128' -> {P}
// CAND-NEXT:   SITE 36:32 launch_block '128' -> {P}
// CAND-NEXT:   IMPLIES {block_size#1} <= 1024
// No site in other() (never launched with 128) nor the float 128.0f.
// CAND-NOT:  CAND {{.*}} other
// CAND-NOT:  SITE 37:

// The low-confidence extent is not lifted by default; the equal literals
// in other roles are left alone.
// TPL:      template <int BLOCK_SIZE = 128>
// TPL-NEXT: __global__ void histogram(const int *in, int *bins, int n) {
// TPL:        __shared__ int local[64];
// TPL-NEXT:   int i = blockIdx.x * BLOCK_SIZE + threadIdx.x;
// TPL:        int scaled = in[i] * 128;
// TPL-NEXT:   int masked = in[i] & 128;
// TPL:        for (int i = threadIdx.x; i < 1024; i += 128)
// TPL:        histogram<BLOCK_SIZE><<<(n + (BLOCK_SIZE - 1)) / BLOCK_SIZE, BLOCK_SIZE>>>(in, bins, n);
// TPL-NEXT:   float scale = 128.0f;

// MANIFEST: KERNEL histogram
// MANIFEST-NOT: KERNEL other
// WHY: "why": "literal 128 used as {{.*}}; the value 128 also appears without a recognised role at lines 22, 23 (left unchanged: check it is not the same constant)"
