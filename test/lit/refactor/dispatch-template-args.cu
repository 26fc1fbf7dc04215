// Template arguments that mean something other than a size are not knobs:
// a data-format constant passed under several names of equal value (a quant
// block size, as in llama.cpp's copy kernels), a selector whose other
// launches pass 0 and 1 (a concat dimension), and a parameter the kernel
// only compares. The block sizes of their launches still are.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL

#define QBLOCK_A 32
#define QBLOCK_B 32
#define THREADS 64

template <int qk>
__global__ void unpack(const float *x, float *y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i * qk < n)
    y[i] = x[i * qk];
}

void unpack_a(const float *x, float *y, int n, cudaStream_t s) {
  unpack<QBLOCK_A><<<(n / QBLOCK_A + THREADS - 1) / THREADS, THREADS, 0, s>>>(x, y, n);
}
void unpack_b(const float *x, float *y, int n, cudaStream_t s) {
  unpack<QBLOCK_B><<<(n / QBLOCK_B + THREADS - 1) / THREADS, THREADS, 0, s>>>(x, y, n);
}

template <int axis>
__global__ void join(const float *a, const float *b, float *d, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    d[i] = axis == 2 ? a[i] : b[i] + axis;
}

void join_run(const float *a, const float *b, float *d, int n, int axis, cudaStream_t s) {
  if (axis == 0)
    join<0><<<(n + 127) / 128, 128, 0, s>>>(a, b, d, n);
  else if (axis == 1)
    join<1><<<(n + 127) / 128, 128, 0, s>>>(a, b, d, n);
  else
    join<2><<<(n + 127) / 128, 128, 0, s>>>(a, b, d, n);
}

template <int order>
__global__ void sort_step(int *keys) {
  const int a = keys[threadIdx.x], b = keys[threadIdx.x ^ 1];
  keys[threadIdx.x] = order == 1 ? min(a, b) : max(a, b);
}

void sort_desc(int *keys, cudaStream_t s) { sort_step<2><<<1, 512, 0, s>>>(keys); }

// CAND:      CAND block_size unpack value=64 spelling=THREADS high launch-param
// CAND-NOT:  QBLOCK
// CAND:      CAND block_size join value=128 spelling=128 high launch-param
// CAND-NOT:  template_arg
// CAND:      CAND block_size sort_step value=512 spelling=512 high launch-param
// CAND-NOT:  template_arg
// CAND-NOT:  CAND other

// The dispatched arguments stay as they are; the kernels read blockDim, so
// the block sizes are launch parameters of the host functions.
// TPL:      template <int qk>
// TPL-NEXT: __global__ void unpack(
// TPL:      template <int BLOCK_SIZE = 64>
// TPL-NEXT: void unpack_a(
// TPL:        unpack<QBLOCK_A><<<(n / QBLOCK_A + BLOCK_SIZE - 1) / BLOCK_SIZE, BLOCK_SIZE, 0, s>>>(x, y, n);
// TPL:      template <int BLOCK_SIZE = 64>
// TPL-NEXT: void unpack_b(
// TPL:        unpack<QBLOCK_B><<<(n / QBLOCK_B + BLOCK_SIZE - 1) / BLOCK_SIZE, BLOCK_SIZE, 0, s>>>(x, y, n);
// TPL:      template <int axis>
// TPL-NEXT: __global__ void join(
// TPL:        join<0><<<
// TPL:        join<1><<<
// TPL:        join<2><<<
// TPL:      template <int order>
// TPL-NEXT: __global__ void sort_step(
// TPL:      sort_step<2><<<1, BLOCK_SIZE, 0, s>>>(keys);
