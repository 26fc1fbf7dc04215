// The grid of a grid-stride kernel capped by a constant (`blocks =
// min((n + threads - 1) / threads, 2048)`, the reduction samples' and many
// libraries' form, with std::min, `min` or a ternary, through a local or
// inline): the cap is a grid size of its own; the blocks the size asks for
// stay the problem's. A kernel whose result depends on its grid (one partial
// per block) keeps its cap, and a min of two constants is no cap of a size.
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX
#include <algorithm>

#define MAX_GRID 1024

__global__ void sum_atomic(const int *in, int *out, int n) {
  int sum = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    sum += in[i];
  atomicAdd(out, sum);
}

__global__ void scale(float *x, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    x[i] *= a;
}

__global__ void per_block(const float *x, float *partial, int n) {
  float acc = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    acc += x[i];
  atomicAdd(&partial[blockIdx.x], acc);
}

void reduce(const int *in, int *out, int n) {
  int threads = 256;
  int blocks = min((n + threads - 1) / threads, 2048);
  sum_atomic<<<blocks, threads>>>(in, out, n);
}

void scale_all(float *x, float a, int n) {
  int wanted = (n + 127) / 128;
  scale<<<std::min(wanted, MAX_GRID), 128>>>(x, a, n);
  scale<<<wanted < 4096 ? wanted : 4096, 128>>>(x, a, n);
  scale<<<std::min(64, 32), 128>>>(x, a, n);
}

void partials(const float *x, float *partial, int n) {
  int blocks = min((n + 255) / 256, 512);
  per_block<<<blocks, 256>>>(x, partial, n);
}

// CAND:     CAND grid_size sum_atomic value=2048 spelling=2048 high launch-param
// CAND-NEXT:  SITE 39:49 launch_grid '2048' -> {P}
// CAND:     CAND grid_size scale value=1024 spelling=MAX_GRID high
// CAND:     CAND grid_size scale value=4096 spelling=4096 high launch-param
// CAND-NEXT:  SITE 46:20 launch_grid '4096' -> {P}
// CAND-NEXT:  SITE 46:36 launch_grid '4096' -> {P}
// CAND-NOT: value=512
// TPL: int blocks = min((n + threads - 1) / threads, GRID_SIZE);
// TPL: scale<<<wanted < [[CAP:GRID_SIZE[_0-9]*]] ? wanted : [[CAP]], BLOCK_SIZE>>>(x, a, n);
// TPL: int blocks = min((n + (BLOCK_SIZE - 1)) / BLOCK_SIZE, 512);
// PTX: ptx-identical: {{[0-9]+}} function(s) identical
