// A kernel launched with different template arguments in different branches
// (a dispatch) whose argument at one launch is that launch's block literal:
// the two are one block size of that launch, lifted together. An argument
// that is no block literal of its launch stays a dispatch, and a block
// shared by launches passing different values is tied to none of them.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %inputs/refactor/summarize.py < %t/out.json | FileCheck %s --check-prefix=MANIFEST

#define WARP_SIZE 32

template <int block_size>
__global__ void row_sum(const float *x, float *out, int ncols) {
  float s = 0.0f;
  for (int col = threadIdx.x; col < ncols; col += block_size)
    s += x[blockIdx.x * ncols + col];
  if (threadIdx.x == 0)
    out[blockIdx.x] = s;
}

static void row_sum_cuda(const float *x, float *out, int ncols, int nrows) {
  if (ncols < 1024) {
    const dim3 block_dims(WARP_SIZE, 1, 1);
    row_sum<WARP_SIZE><<<nrows, block_dims>>>(x, out, ncols);
  } else if (ncols < 4096) {
    row_sum<256><<<nrows, 256>>>(x, out, ncols);
  } else {
    const dim3 block_dims(1024, 1, 1);
    row_sum<1024><<<nrows, block_dims>>>(x, out, ncols);
  }
}
void run_rows(const float *x, float *out, int n, int r) { row_sum_cuda(x, out, n, r); }

// Items per thread, not the block: 4 and 8 are a dispatch.
template <int items>
__global__ void scale(float *x, int n) {
  for (int i = 0; i < items; ++i)
    x[(blockIdx.x * 256 + threadIdx.x) * items + i] *= 2.0f;
}

// One block for two launches passing different values: no tie.
template <int width>
__global__ void fill(float *x) { x[blockIdx.x * width + threadIdx.x] = 1.0f; }

void run_other(float *x, int n, bool wide) {
  if (n % 8 == 0)
    scale<8><<<n / 2048, 256>>>(x, n);
  else
    scale<4><<<n / 1024, 256>>>(x, n);
  dim3 block(128);
  if (wide)
    fill<128><<<n / 128, block>>>(x);
  else
    fill<64><<<n / 128, block>>>(x);
}

// CAND:      CAND block_size row_sum value=256 spelling=256 high
// CAND-NEXT:   SITE 30:13 template_arg '256' -> {P}
// CAND-NEXT:   SITE 30:27 launch_block '256' -> {P}
// CAND:      CAND block_size row_sum value=1024 spelling=1024 high
// CAND-NEXT:   SITE 32:27 launch_block '1024' -> {P}
// CAND-NEXT:   SITE 33:13 template_arg '1024' -> {P}
// CAND-NOT:  template_arg '8'
// CAND-NOT:  template_arg '4'
// CAND-NOT:  template_arg '128'
// CAND-NOT:  template_arg '64'

// TPL:      template <int BLOCK_SIZE = 256, int BLOCK_SIZE_2 = 1024>
// TPL-NEXT: static void row_sum_cuda(const float *x, float *out, int ncols, int nrows) {
// TPL-NEXT:   if (ncols < 1024) {
// TPL-NEXT:     const dim3 block_dims(WARP_SIZE, 1, 1);
// TPL-NEXT:     row_sum<WARP_SIZE><<<nrows, block_dims>>>(x, out, ncols);
// TPL-NEXT:   } else if (ncols < 4096) {
// TPL-NEXT:     row_sum<BLOCK_SIZE><<<nrows, BLOCK_SIZE>>>(x, out, ncols);
// TPL-NEXT:   } else {
// TPL-NEXT:     const dim3 block_dims(BLOCK_SIZE_2, 1, 1);
// TPL-NEXT:     row_sum<BLOCK_SIZE_2><<<nrows, block_dims>>>(x, out, ncols);
// TPL:        fill<128><<<
// TPL-NEXT:   else
// TPL-NEXT:     fill<64><<<

// MANIFEST:      LAUNCHER row_sum_cuda
// MANIFEST-NEXT:   PARAM BLOCK_SIZE int tunable block_size default=256 domain=[32,64,128,256,512,1024]
// MANIFEST-NEXT:   PARAM BLOCK_SIZE_2 int tunable block_size default=1024 domain=[32,64,128,256,512,1024]
