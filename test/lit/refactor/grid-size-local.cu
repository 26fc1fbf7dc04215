// The grid of grid-stride kernels given as a local (`int num_blocks = 120;`,
// SHOC's and BabelStream's form) is a grid size: the local's definition is
// the site, so every host use of it follows. A `while` loop stepping by the
// grid (`i += stride` with `stride = blockDim.x * 2 * gridDim.x`) is a
// grid-stride loop too. A kernel that writes one result per block
// (`out[blockIdx.x]`) computes something else for another grid: its grid
// stays.
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX

__global__ void fill(float *x, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    x[i] = 1.0f;
}

__global__ void twice(float *x, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x * 2 + threadIdx.x;
  const unsigned stride = blockDim.x * 2 * gridDim.x;
  while (i < n) {
    x[i] *= 2.0f;
    x[i + blockDim.x] *= 2.0f;
    i += stride;
  }
}

__global__ void partial_sums(const float *x, float *out, int n) {
  float acc = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    acc += x[i];
  atomicAdd(&out[blockIdx.x], acc);
}

void run(float *x, float *partials, int n) {
  int num_blocks = 120;
  fill<<<num_blocks, 256>>>(x, n);
  twice<<<num_blocks, 128>>>(x, n);
  int partial_blocks = 64;
  partial_sums<<<partial_blocks, 256>>>(x, partials, n);
}

// A name that says nothing of its kind (TensorRT's `GS`): the grid-stride
// kernel it sizes is the evidence.
__global__ void scale(float *x, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    x[i] *= 0.5f;
}

void run_named(float *x, int n, cudaStream_t stream) {
  const int GS = 256;
  scale<<<GS, 128, 0, stream>>>(x, n);
}

// CAND:     CAND grid_size fill value=120 spelling=num_blocks high launch-param
// CAND-NEXT:  SITE 39:20 definition '120' -> {P}
// CAND-NOT: value=64
// CAND:     CAND grid_size scale value=256 spelling=GS high launch-param
// CAND-NEXT:  SITE 54:18 definition '256' -> {P}
// TPL: int num_blocks = GRID_SIZE;
// TPL: int partial_blocks = 64;
// TPL: const int GS = {{GRID_SIZE[_0-9]*}};
// PTX: ptx-identical: 4 function(s) identical
