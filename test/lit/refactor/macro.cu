// Object-like macros: their uses are rewritten, never the #define line; a
// macro also used by host code outside the launch keeps working there.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %inputs/refactor/summarize.py < %t/out.json | FileCheck %s --check-prefix=MANIFEST

#define THREADS 128
#define ROWS 4
#define SCALE 3

__global__ void scale_rows(float *x, int n) {
  int row = blockIdx.x * ROWS + threadIdx.y;
  for (int i = threadIdx.x; i < n; i += THREADS)
    x[row * n + i] *= SCALE;
}

void launch(float *x, int rows, int n) {
  dim3 block(THREADS, ROWS);
  scale_rows<<<(rows + ROWS - 1) / ROWS, block>>>(x, n);
}

// Host code outside the launch: THREADS stays a macro here.
int host_threads() { return THREADS * 2; }

// CAND:      CAND block_size scale_rows value=4 spelling=ROWS high
// CAND-NEXT:   SITE 16:26 index_arith 'ROWS' -> {P}
// CAND-NEXT:   SITE 22:23 launch_block 'ROWS' -> {P}
// CAND-NEXT:   SITE 23:24 launch_grid 'ROWS' -> {P}
// CAND-NEXT:   SITE 23:36 launch_grid 'ROWS' -> {P}
// CAND-NEXT:   IMPLIES {block_size#1} * {block_size#0} <= 1024
// CAND-NEXT:   IMPLIES {block_size#0} <= 1024
// CAND-NEXT: CAND block_size scale_rows value=128 spelling=THREADS high
// CAND-NEXT:   SITE 17:41 loop_stride 'THREADS' -> {P}
// CAND-NEXT:   SITE 22:14 launch_block 'THREADS' -> {P}
// CAND-NEXT:   IMPLIES {block_size#1} * {block_size#0} <= 1024
// CAND-NEXT:   IMPLIES {block_size#1} <= 1024
// SCALE has no tuning role; THREADS in host_threads() is not a site.
// CAND-NOT: SCALE
// CAND-NOT: SITE 27:

// TPL:      #define THREADS 128
// TPL-NEXT: #define ROWS 4
// TPL-NEXT: #define SCALE 3
// TPL:      template <int BLOCK_SIZE = 4, int BLOCK_SIZE_2 = 128>
// TPL-NEXT: __global__ void scale_rows(float *x, int n) {
// TPL:        int row = blockIdx.x * BLOCK_SIZE + threadIdx.y;
// TPL-NEXT:   for (int i = threadIdx.x; i < n; i += BLOCK_SIZE_2)
// TPL-NEXT:     x[row * n + i] *= SCALE;
// TPL:      template <int BLOCK_SIZE = 4, int BLOCK_SIZE_2 = 128>
// TPL-NEXT: void launch(float *x, int rows, int n) {
// TPL-NEXT:   dim3 block(BLOCK_SIZE_2, BLOCK_SIZE);
// TPL-NEXT:   scale_rows<BLOCK_SIZE, BLOCK_SIZE_2><<<(rows + BLOCK_SIZE - 1) / BLOCK_SIZE, block>>>(x, n);
// TPL:      void launch(float *x, int rows, int n) {
// TPL-NEXT:   return launch<4, 128>(x, rows, n);
// TPL:      int host_threads() { return THREADS * 2; }

// The grid uses `rows`, which the kernel never sees: a parameter of the
// launcher, named as it is (a dimension of the problem).
// MANIFEST:      KERNEL scale_rows
// MANIFEST-NEXT:   PARAM BLOCK_SIZE int tunable block_size default=4
// MANIFEST-NEXT:   PARAM BLOCK_SIZE_2 int tunable block_size default=128
// MANIFEST-NEXT:   ARG float * x
// MANIFEST-NEXT:   ARG int n
// MANIFEST:        CONSTRAINT BLOCK_SIZE * BLOCK_SIZE_2 <= 1024
// MANIFEST:        LAUNCH grid=['(rows + BLOCK_SIZE - 1) / BLOCK_SIZE'] block=['BLOCK_SIZE_2', 'BLOCK_SIZE'] smem=0
