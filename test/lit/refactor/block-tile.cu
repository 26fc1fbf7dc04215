// A constant that the grid divides by and the kernel offsets its block by
// (MAGMA's `blockIdx.y * NB` beside `magma_ceildiv(n, NB)`) is the block's
// tile of the problem, whatever its name: lifted as a tile_size, the grid
// and the kernel changing together. A constant that also sizes the block
// stays a block size; one the kernel reads without the grid is no tile.
// So is a named count of items per thread or unrolled steps read the same
// way.
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX

#define MB 64
#define NB 160
#define BLK_Y 32
#define LD 48

static int ceildiv(int a, int b) { return (a + b - 1) / b; }

// Each thread divides one row of its block's NB-column tile.
__global__ void scale_lower(int m, int n, const double *D, double *A, int lda) {
  int ind_x = blockIdx.x * MB + threadIdx.x;
  int ind_y = blockIdx.y * NB;
  A += ind_x;
  if (ind_x < m)
    for (int j = ind_y; j < min(ind_y + NB, n); j++)
      A[j * lda] /= D[j];
}

void scale(int m, int n, const double *D, double *A, int lda, cudaStream_t s) {
  dim3 threads(MB);
  dim3 grid(ceildiv(m, MB), ceildiv(n, NB));
  scale_lower<<<grid, threads, 0, s>>>(m, n, D, A, lda);
}

// BLK_Y rows per block, looped over by each thread (MAGMA's zgeadd).
__global__ void add(int m, int n, const float *B, float *A) {
  int ind = blockIdx.x * MB + threadIdx.x;
  int iby = blockIdx.y * BLK_Y;
  if (ind < m && iby + BLK_Y <= n)
    for (int j = 0; j < BLK_Y; ++j)
      A[ind + (iby + j) * m] += B[ind + (iby + j) * m];
}

// LD is a leading dimension of the data: the kernel indexes by it, the
// grid does not divide by it.
__global__ void copy_rows(const float *in, float *out) {
  out[blockIdx.x * LD + threadIdx.x] = in[blockIdx.x * LD + threadIdx.x];
}

// UNROLL items per thread, stepped through by the block (DeepSpeed's
// `blockIdx.x * threads * unroll * T_per_access`): the grid divides by
// it, the block's offset and the loop read it.
#define THREADS 256
#define UNROLL 4
__global__ void axpy(int n, const float *x, float *y) {
  int base = blockIdx.x * THREADS * UNROLL + threadIdx.x;
#pragma unroll
  for (int i = 0; i < UNROLL; i++)
    if (base + i * THREADS < n)
      y[base + i * THREADS] += x[base + i * THREADS];
}

void run_axpy(int n, const float *x, float *y) {
  axpy<<<ceildiv(n, THREADS * UNROLL), THREADS>>>(n, x, y);
}

void add_and_copy(int m, int n, const float *B, float *A, float *C) {
  add<<<dim3(ceildiv(m, MB), ceildiv(n, BLK_Y)), MB>>>(m, n, B, A);
  copy_rows<<<m, 32>>>(A, C);
}

// CAND:     CAND block_size scale_lower value=64 spelling=MB high
// CAND:     CAND tile_size scale_lower value=160 spelling=NB high
// CAND-NEXT:  SITE 26:28 index_arith 'NB' -> {P}
// CAND-NEXT:  SITE 29:41 other 'NB' -> {P}
// CAND-NEXT:  SITE 35:40 launch_grid 'NB' -> {P}
// CAND:     CAND block_size add value=64 spelling=MB high
// CAND:     CAND tile_size add value=32 spelling=BLK_Y high
// CAND:     CAND unroll axpy value=4 spelling=UNROLL high
// CAND-NOT: spelling=LD
// TPL: template <int BLOCK_SIZE = 64, int TILE = 160>
// TPL: int ind_y = blockIdx.y * TILE;
// TPL: for (int j = ind_y; j < min(ind_y + TILE, n); j++)
// TPL: dim3 grid(ceildiv(m, BLOCK_SIZE), ceildiv(n, TILE));
// TPL: int iby = blockIdx.y * TILE_Y;
// TPL: for (int i = 0; i < AXPY_UNROLL; i++)
// TPL: axpy<BLOCK_SIZE, AXPY_UNROLL><<<ceildiv(n, BLOCK_SIZE * AXPY_UNROLL), BLOCK_SIZE>>>(n, x, y);
// PTX: ptx-identical: 4 function(s) identical
