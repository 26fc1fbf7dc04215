// A namespace-scope constant shared by host and device: its uses in the
// kernel and in what feeds the launch change; its definition and other host
// uses stay, so code that is not rewritten keeps working.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %inputs/refactor/summarize.py < %t/out.json | FileCheck %s --check-prefix=MANIFEST

#include <cuda_runtime.h>

namespace cfg {
constexpr int kBlockThreads = 256;
}

__global__ void saxpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * cfg::kBlockThreads + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

void run(float a, const float *x, float *y, int n) {
  int blocks = (n + cfg::kBlockThreads - 1) / cfg::kBlockThreads;
  saxpy<<<blocks, cfg::kBlockThreads>>>(a, x, y, n);
}

// Host uses of the same constant that do not feed the launch stay as they are.
size_t staging_bytes() { return cfg::kBlockThreads * sizeof(float); }

// CAND:      CAND block_size saxpy value=256 spelling=kBlockThreads high
// CAND-NEXT:   SITE 19:24 index_arith 'cfg::kBlockThreads' -> {P}
// CAND-NEXT:   SITE 25:21 launch_grid 'cfg::kBlockThreads' -> {P}
// CAND-NEXT:   SITE 25:47 launch_grid 'cfg::kBlockThreads' -> {P}
// CAND-NEXT:   SITE 26:19 launch_block 'cfg::kBlockThreads' -> {P}
// CAND-NOT:    SITE 30:

// TPL:      constexpr int kBlockThreads = 256;
// TPL:      template <int BLOCK_SIZE = 256>
// TPL-NEXT: __global__ void saxpy(float a, const float *x, float *y, int n) {
// TPL:        int i = blockIdx.x * BLOCK_SIZE + threadIdx.x;
// TPL:      template <int BLOCK_SIZE = 256>
// TPL-NEXT: void run(float a, const float *x, float *y, int n) {
// TPL-NEXT:   int blocks = (n + BLOCK_SIZE - 1) / BLOCK_SIZE;
// TPL-NEXT:   saxpy<BLOCK_SIZE><<<blocks, BLOCK_SIZE>>>(a, x, y, n);
// TPL:      size_t staging_bytes() { return cfg::kBlockThreads * sizeof(float); }

// The local `blocks` is read through to its initialiser.
// MANIFEST:      KERNEL saxpy
// MANIFEST:        LAUNCH grid=['(n + BLOCK_SIZE - 1) / BLOCK_SIZE'] block=['BLOCK_SIZE'] smem=0
