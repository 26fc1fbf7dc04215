// Block sizes in host locals that are declared without const but never
// changed (`int THREADS = 512;`, `int NUM_THREADS = 1 << 10;`, the form of
// many examples' `main`): the local is the constant, named by itself, its
// initializer the site. A const local read by two kernels' launches joins
// each kernel's template argument of its value (the launch's block and the
// block the kernel was instantiated for are one parameter). Refused: a local
// changed after its declaration, or whose address is taken, keeps the value
// flowing to the launch as before; a device function's local is no host
// constant.
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2>&1 | FileCheck %s
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX

__global__ void scale(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= 2.0f;
}

__global__ void shift(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] += 1.0f;
}

template <int BLOCK> __global__ void tile_sum(const float *x, float *out) {
  __shared__ float s[BLOCK];
  s[threadIdx.x] = x[blockIdx.x * BLOCK + threadIdx.x];
  __syncthreads();
  for (int k = BLOCK / 2; k > 0; k /= 2) {
    if (threadIdx.x < k)
      s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = s[0];
}

template <int BLOCK> __global__ void tile_max(const float *x, float *out) {
  __shared__ float s[BLOCK];
  s[threadIdx.x] = x[blockIdx.x * BLOCK + threadIdx.x];
  __syncthreads();
  for (int k = BLOCK / 2; k > 0; k /= 2) {
    if (threadIdx.x < k)
      s[threadIdx.x] = fmaxf(s[threadIdx.x], s[threadIdx.x + k]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = s[0];
}

void take(int *);

void run_scale(float *x, int n) {
  int THREADS = 512;
  int BLOCKS = (n + THREADS - 1) / THREADS;
  scale<<<BLOCKS, THREADS>>>(x, n);
}

void run_shift(float *x, int n) {
  int NUM_THREADS = 1 << 10;
  int NUM_BLOCKS = (n + NUM_THREADS - 1) / NUM_THREADS;
  shift<<<NUM_BLOCKS, NUM_THREADS>>>(x, n);
}

void run_tiles(const float *x, float *sums, float *maxes, int tiles) {
  const int threads = 128;
  tile_sum<128><<<tiles, threads>>>(x, sums);
  tile_max<128><<<tiles, threads>>>(x, maxes);
}

void run_changed(float *x, int n, bool wide) {
  int threads = 64;
  if (wide)
    threads *= 2;
  scale<<<(n + threads - 1) / threads, threads>>>(x, n);
}

void run_escaped(float *x, int n) {
  int threads = 96;
  take(&threads);
  shift<<<(n + threads - 1) / threads, threads>>>(x, n);
}

// CAND:      CAND block_size scale value=512 spelling=THREADS high launch-param
// CAND-NEXT:   SITE 59:17 definition '512' -> {P}
// CAND:      CAND block_size shift value=1024 spelling=NUM_THREADS high launch-param
// CAND-NEXT:   SITE 65:21 definition '1 << 10' -> {P}
// CAND:      CAND block_size tile_sum value=128 spelling=threads high
// CAND-NEXT:   SITE 71:23 definition '128' -> {P} shared
// CAND-NEXT:   SITE 72:12 template_arg '128' -> {P}
// CAND:      CAND block_size tile_max value=128 spelling=threads high
// CAND-NEXT:   SITE 71:23 definition '128' -> {P} shared
// CAND-NEXT:   SITE 73:12 template_arg '128' -> {P}
// CAND-NOT:  spelling=threads {{.*}}value=96
// CAND-NOT:  SITE 84:
// CHECK: wrote {{.*}}out.cu
// TPL:      int THREADS = BLOCK_SIZE;
// TPL:      int NUM_THREADS = BLOCK_SIZE;
// TPL:      const int threads = BLOCK_SIZE;
// TPL-NEXT: tile_sum<BLOCK_SIZE><<<tiles, threads>>>(x, sums);
// TPL-NEXT: tile_max<BLOCK_SIZE><<<tiles, threads>>>(x, maxes);
// TPL:      int threads = 96;
// PTX: ptx-identical: {{[0-9]+}} function(s) identical
