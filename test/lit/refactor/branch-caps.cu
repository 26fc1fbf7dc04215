// A block size capped by a branch (Rodinia's `int threads = n; if (n > MAX)
// { blocks = ...; threads = MAX; }`) is a cap like std::min(n, MAX): the
// bound assigned and the one compared are launch-block sites, the grid the
// branch computes from it grid sites (with an else, each value is its own).
// Not when the condition compares something else, or the local changes again.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates 2> /dev/null | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> /dev/null
// RUN: grep -v -e '^// [A-Z-]*:' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL

#define MAX_THREADS 512

__global__ void visit(int *cost, int n) {
  int tid = blockIdx.x * MAX_THREADS + threadIdx.x;
  if (tid < n)
    cost[tid] += 1;
}

__global__ void clear(int *cost, int n) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < n)
    cost[tid] = 0;
}

__global__ void mark(int *cost, int n) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < n)
    cost[tid] = 1;
}

void run(int *cost, int n) {
  int blocks = 1;
  int threads = n;
  if (n > MAX_THREADS) {
    blocks = (n + MAX_THREADS - 1) / MAX_THREADS;
    threads = MAX_THREADS;
  }
  dim3 grid(blocks, 1, 1);
  dim3 block(threads, 1, 1);
  visit<<<grid, block>>>(cost, n);

  // An else branch: no cap; each assigned value is a block size.
  int t2 = n;
  if (n > 256)
    t2 = 256;
  else
    t2 = 64;
  clear<<<(n + t2 - 1) / t2, t2>>>(cost, n);

  // Changed again after the branch.
  int t3 = n;
  if (n >= 128)
    t3 = 128;
  t3 = t3 / 2;
  mark<<<(n + t3 - 1) / t3, t3>>>(cost, n);
}

// CAND:      CAND block_size visit value=512 spelling=MAX_THREADS high
// CAND-NEXT:   SITE 16:26 index_arith 'MAX_THREADS' -> {P}
// CAND-NEXT:   SITE 36:11 launch_block 'MAX_THREADS' -> {P}
// CAND-NEXT:   SITE 37:19 launch_grid 'MAX_THREADS' -> {P}
// CAND-NEXT:   SITE 37:38 launch_grid 'MAX_THREADS' -> {P}
// CAND-NEXT:   SITE 38:15 launch_block 'MAX_THREADS' -> {P}
// CAND-NEXT: IMPLIES
// CAND-NEXT: CAND block_size clear value=256 spelling=256 high launch-param
// CAND-NEXT:   SITE 47:10 launch_block '256' -> {P}
// CAND-NEXT:   IMPLIES
// CAND-NEXT: CAND block_size clear value=64 spelling=64 high launch-param
// CAND-NEXT:   SITE 49:10 launch_block '64' -> {P}
// CAND-NOT:  CAND {{.*}} mark

// TPL:      template <int BLOCK_SIZE = 512>
// TPL-NEXT: __global__ void visit(int *cost, int n) {
// TPL:      template <int [[VISIT:[A-Z_0-9]+]] = 512, int [[CLEAR:[A-Z_0-9]+]] = 256, int [[OTHER:[A-Z_0-9]+]] = 64>
// TPL-NEXT: void run(int *cost, int n) {
// TPL:        if (n > [[VISIT]]) {
// TPL-NEXT:     blocks = (n + [[VISIT]] - 1) / [[VISIT]];
// TPL-NEXT:     threads = [[VISIT]];
// TPL:        visit<[[VISIT]]><<<grid, block>>>(cost, n);
// TPL:        if (n > 256)
// TPL-NEXT:     t2 = [[CLEAR]];
// TPL-NEXT:   else
// TPL-NEXT:     t2 = [[OTHER]];
// TPL:        if (n >= 128)
// TPL-NEXT:     t3 = 128;
