// A block computed by a host helper that returns the block's constant
// (BART's `blocksize(N)`, beside its `gridsize(N)`): the call is the
// parameter, and the grid helper is written out with it, so block and grid
// change together. A block helper of several statements cannot be written
// out: its kernel keeps the constant, with a note, and so does the grid
// helper's call beside it.
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates 2>/dev/null | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: FileCheck %s --check-prefix=NOTE < %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX

#define BLOCKSIZE 256
#define WARPSIZE 32
#define WIDE 512

static int blocksize(long N) { return BLOCKSIZE; }
static long gridsize(long N) { return (N + BLOCKSIZE - 1) / BLOCKSIZE; }

static int wide_block(long N) {
  int warps = (N + WARPSIZE - 1) / WARPSIZE;
  return warps < WIDE / WARPSIZE ? warps * WARPSIZE : WIDE;
}
static long wide_grid(long N) { return (N + WIDE - 1) / WIDE; }

__global__ void axpy(long n, float a, const float *x, float *y) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n)
    y[i] += a * x[i];
}

__global__ void scale(long n, float a, float *y) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n)
    y[i] *= a;
}

void gpu_axpy(long n, float a, const float *x, float *y) {
  axpy<<<gridsize(n), blocksize(n)>>>(n, a, x, y);
}

void gpu_scale(long n, float a, float *y) {
  scale<<<wide_grid(n), wide_block(n)>>>(n, a, y);
}

// CAND:      CAND block_size axpy value=256 spelling=BLOCKSIZE high
// CAND-NEXT:   SITE 42:10 launch_grid 'gridsize(n)' -> (n + {P} - 1) / {P}
// CAND-NEXT:   SITE 42:23 launch_block 'blocksize(n)' -> {P}
// CAND-NOT:  spelling=WIDE
// NOTE: note: {{.*}}block-helpers.cu:46:25: the block is computed by wide_block, which reads WIDE itself ({{.*}}block-helpers.cu:25), and scale runs with that block: WIDE keeps its value in it (pass it to wide_block to tune it)
// TPL:      template <int BLOCK_SIZE = 256>
// TPL-NEXT: void gpu_axpy(long n, float a, const float *x, float *y) {
// TPL:        axpy<<<((n + BLOCK_SIZE - 1) / BLOCK_SIZE), BLOCK_SIZE>>>(n, a, x, y);
// TPL:      void gpu_scale(long n, float a, float *y) {
// TPL-NEXT:   scale<<<wide_grid(n), wide_block(n)>>>(n, a, y);
// PTX: ptx-identical: 2 function(s) identical
