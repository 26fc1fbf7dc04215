// Device code that embeds __LINE__ (assert, llama.cpp's NO_DEVICE_CODE and
// GGML_ABORT) keeps its values: every edit that adds lines is followed by a
// #line directive giving the next original line its number back, also in
// the middle of a line, so the default instantiation compiles to the same
// PTX (ptx-rewrite-rules.test checks this file).
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s -o %t/out.cu
// RUN: grep -v -e '^// ' %t/out.cu | FileCheck %s

#define THREADS 256
#define TRAP_WITH_LINE(x) ((x)[0] = __LINE__)

__global__ void __launch_bounds__(THREADS) fill(int *x, int n) {
  const int i = blockIdx.x * THREADS + threadIdx.x;
  if (i >= n + THREADS)
    TRAP_WITH_LINE(x);
  if (i < n) x[i] = __LINE__;
}

__global__ void __launch_bounds__(128) tail(int *x) { x[threadIdx.x * 4] = __LINE__; }

void run(int *x, int n, cudaStream_t s) {
  fill<<<(n + THREADS - 1) / THREADS, THREADS, 0, s>>>(x, n);
  tail<<<1, 128, 0, s>>>(x);
}

// CHECK:      template <int [[P:[A-Z_]+]] = 256>
// CHECK-NEXT: #line 14
// CHECK-NEXT: __global__ void __launch_bounds__([[P]]) fill(int *x, int n) {
// CHECK-NEXT:   static_assert(
// CHECK-NEXT: #line 15
// CHECK-NEXT:   const int i = blockIdx.x * [[P]] + threadIdx.x;
// CHECK:      template <int [[Q:[A-Z_]+]] = 128>
// CHECK-NEXT: #line 21
// CHECK-NEXT: __global__ void __launch_bounds__([[Q]]) tail(int *x) {
// CHECK-NEXT:   static_assert(
// CHECK-NEXT: #line 21
// CHECK-NEXT: x[threadIdx.x * 4] = __LINE__; }
// CHECK:      #line 23
// CHECK-NEXT: void run(int *x, int n, cudaStream_t s) {
