// A block size held in an integer local that is assigned on each path
// before the launch (`size_t thread; if (!shared) thread = GMEM; else thread
// = SHMEM;`, the GUPS benchmark's form): each assigned constant is a block
// size, the condition choosing. A local left unset on some path, or changed
// in a loop, is not followed.
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX
#include <cstddef>

#define THREADS_GMEM 1024
#define THREADS_SHMEM 512

__global__ void bench(size_t n, float *t) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n)
    t[i] += 1.0f;
}

void run(size_t n, float *t, bool shared_mem, int sms) {
  size_t thread, grid;
  if (!shared_mem) {
    thread = THREADS_GMEM;
    grid = (n + thread - 1) / thread;
  } else {
    thread = THREADS_SHMEM;
    grid = sms * 4;
  }
  bench<<<grid, thread>>>(n, t);
}

void unset(size_t n, float *t, bool big) {
  int threads;
  if (big)
    threads = 384;
  bench<<<(n + 383) / 384, threads>>>(n, t);
}

void looped(size_t n, float *t) {
  int threads = 96;
  for (int r = 0; r < 3; ++r) {
    bench<<<(n + threads - 1) / threads, threads>>>(n, t);
    threads = 192;
  }
}

// Assigned in the loop's body before the launch (RSBench's per-material
// launches): each iteration launches with that value.
void per_material(size_t n, float *t) {
  int nthreads = 32;
  bench<<<(n + 31) / 32, nthreads>>>(n, t);
  for (int m = 0; m < 12; m++) {
    nthreads = 160;
    int nblocks = (n + nthreads - 1) / nthreads;
    bench<<<nblocks, nthreads>>>(n, t);
  }
}

// CAND:     CAND block_size bench value=1024 spelling=THREADS_GMEM high launch-param
// CAND-NEXT:  SITE 27:14 launch_block 'THREADS_GMEM' -> {P}
// CAND:     CAND block_size bench value=512 spelling=THREADS_SHMEM high launch-param
// CAND-NEXT:  SITE 30:14 launch_block 'THREADS_SHMEM' -> {P}
// CAND-NOT: value=384
// CAND-NOT: value=192
// CAND:     CAND block_size bench value=160 spelling=160 high launch-param
// CAND-NEXT:  SITE 57:16 launch_block '160' -> {P}
// TPL: thread = [[P1:BLOCK_SIZE[_0-9]*]];
// TPL: thread = [[P2:BLOCK_SIZE[_0-9]*]];
// TPL: threads = 384;
// TPL: int threads = 96;
// TPL: threads = 192;
// TPL: nthreads = {{BLOCK_SIZE[_0-9]*}};
// PTX: ptx-identical: {{[0-9]+}} function(s) identical
