// Device helpers that use a lifted constant receive it as a template
// parameter, and the calls from the kernel pass it (spelling deduced
// arguments); calls from kernels that are not planned keep the default.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %inputs/refactor/summarize.py < %t/out.json | FileCheck %s --check-prefix=MANIFEST

#define TILE 32

// A helper that uses the constant receives it as a template parameter.
__device__ float tile_sum(const float (&t)[TILE]) {
  float s = 0.0f;
  for (int i = 0; i < TILE; ++i)
    s += t[i];
  return s;
}

// A helper two calls away, through a templated helper.
template <typename T>
__device__ T load_row(const T *row, int i) { return row[i % TILE]; }

// A helper without the constant is left alone.
__device__ float twice(float v) { return 2.0f * v; }

__global__ void rows(const float *in, float *out) {
  __shared__ float t[TILE];
  t[threadIdx.x] = load_row(in + blockIdx.x * TILE, threadIdx.x);
  __syncthreads();
  if (threadIdx.x == 0)
    out[blockIdx.x] = twice(tile_sum(t));
}

// Another kernel calls the same helper; it is not planned here, so its
// call keeps the helper's default.
__global__ void other(const float *in, float *out) {
  __shared__ float t[32];
  t[threadIdx.x % 32] = in[threadIdx.x];
  out[0] = tile_sum(t);
}

void launch(const float *in, float *out, int n) {
  rows<<<n / TILE, TILE>>>(in, out);
}

// CAND:      CAND tile_size rows value=32 spelling=TILE high
// CAND-NEXT:   SITE 15:44 other 'TILE' -> {P}
// CAND-NEXT:   SITE 17:23 loop_bound 'TILE' -> {P}
// CAND-NEXT:   SITE 24:61 other 'TILE' -> {P}
// CAND-NEXT:   SITE 30:22 shared_extent 'TILE' -> {P}
// CAND-NEXT:   SITE 31:47 index_arith 'TILE' -> {P}
// CAND-NEXT:   SITE 46:14 launch_grid 'TILE' -> {P}
// CAND-NEXT:   SITE 46:20 launch_block 'TILE' -> {P}
// CAND-NEXT:   IMPLIES {tile_size#0} <= 1024
// CAND-NEXT:   IMPLIES 4 * {tile_size#0} <= 49152
// CAND-NEXT: CAND tile_size other value=32 spelling=TILE high
// CAND-NEXT:   SITE 15:44 other 'TILE' -> {P}
// CAND-NEXT:   SITE 17:23 loop_bound 'TILE' -> {P}
// CAND-NEXT:   SITE 40:22 shared_extent '32' -> {P}
// CAND-NEXT:   IMPLIES 4 * {tile_size#1} <= 49152

// TPL:      #define TILE 32
// TPL:      template <int ROWS_TILE = 32>
// TPL-NEXT: __device__ float tile_sum(const float (&t)[ROWS_TILE]) {
// TPL:        for (int i = 0; i < ROWS_TILE; ++i)
// TPL:      template <typename T, int ROWS_TILE = 32>
// TPL-NEXT: __device__ T load_row(const T *row, int i) { return row[i % ROWS_TILE]; }
// TPL:      __device__ float twice(float v) { return 2.0f * v; }
// TPL:      template <int ROWS_TILE = 32>
// TPL-NEXT: __global__ void rows(const float *in, float *out) {
// TPL:        __shared__ float t[ROWS_TILE];
// TPL-NEXT:   t[threadIdx.x] = load_row<float, ROWS_TILE>(in + blockIdx.x * ROWS_TILE, threadIdx.x);
// TPL:          out[blockIdx.x] = twice(tile_sum<ROWS_TILE>(t));
// TPL:      __global__ void other(const float *in, float *out) {
// TPL-NEXT:   __shared__ float t[32];
// TPL:        out[0] = tile_sum(t);
// TPL:        rows<ROWS_TILE><<<n / ROWS_TILE, ROWS_TILE>>>(in, out);

// MANIFEST:      KERNEL rows
// MANIFEST-NEXT:   PARAM ROWS_TILE int tunable tile_size default=32
// MANIFEST-NOT:  KERNEL other
