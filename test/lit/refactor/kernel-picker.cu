// A kernel chosen by a picker function (exllama's `*_pick(tuning)`: `fp k =
// pick(t); k<<<blocks, threads>>>(...)`): every return of the picker names
// a kernel, so the launch launches each of them. The picker's returns take
// the kernel's new template arguments, the launch's function its geometry,
// and it passes them to the picker. Refused: a picker that may return
// something else (a null pointer).
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX

const int THREADS_X = 32;
const int THREADS_Y = 8;

typedef void (*fp_scale)(float *, int, int);

template <bool fast>
__global__ void scale(float *x, int rows, int cols) {
  int c = blockIdx.x * THREADS_X + threadIdx.x;
  int r = blockIdx.y * THREADS_Y + threadIdx.y;
  if (r < rows && c < cols)
    x[r * cols + c] *= fast ? 2.0f : 3.0f;
}

fp_scale scale_pick(bool fast) {
  if (fast)
    return scale<true>;
  else
    return scale<false>;
}

void run(float *x, int rows, int cols, bool fast) {
  dim3 threads(THREADS_X, THREADS_Y, 1);
  dim3 blocks((cols + THREADS_X - 1) / THREADS_X, (rows + THREADS_Y - 1) / THREADS_Y);
  fp_scale kernel = scale_pick(fast);
  kernel<<<blocks, threads>>>(x, rows, cols);
}

#define SHIFT_THREADS 128

__global__ void shift(float *x, int n) {
  int i = blockIdx.x * SHIFT_THREADS + threadIdx.x;
  if (i < n)
    x[i] += 1.0f;
}

typedef void (*fp_shift)(float *, int);

fp_shift shift_pick(bool on) { return on ? shift : nullptr; }

void run_shift(float *x, int n, bool on) {
  fp_shift kernel = shift_pick(on);
  if (kernel)
    kernel<<<(n + SHIFT_THREADS - 1) / SHIFT_THREADS, SHIFT_THREADS>>>(x, n);
}

// CAND:     CAND block_size scale value=32 spelling=THREADS_X high
// CAND:     CAND block_size scale value=8 spelling=THREADS_Y high
// CAND-NOT: CAND block_size shift {{.*}} high

// TPL:      template <bool fast, int [[X:[A-Z_]+]] = 32, int [[Y:[A-Z_]+]] = 8>
// TPL-NEXT: __global__ void scale(float *x, int rows, int cols) {
// TPL:      template <int [[X]] = 32, int [[Y]] = 8>
// TPL-NEXT: fp_scale scale_pick(bool fast) {
// TPL:      return scale<true, [[X]], [[Y]]>;
// TPL:      return scale<false, [[X]], [[Y]]>;
// TPL:      void run(float *x, int rows, int cols, bool fast) {
// TPL-NEXT: dim3 threads([[X]], [[Y]], 1);
// TPL:      fp_scale kernel = scale_pick<[[X]], [[Y]]>(fast);
// TPL-NEXT: kernel<<<blocks, threads>>>(x, rows, cols);
// PTX: ptx-identical: {{[0-9]+}} function(s) identical
