// main cannot be a template: its body becomes one under another name (a
// whole identifier the file does not use, here with a '_' appended since
// these checks spell the first choice), main keeps its signature and calls
// the default instantiation. A body falling off its end gets the `return
// 0;` only main may leave out, on its last line. main with unnamed
// parameters cannot forward to it and keeps the defaults, with a note.
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t && split-file %s %t
// RUN: ktune-refactor %t/argv.cu -o %t/argv.tpl.cu
// RUN: %python %scripts/ptx-identical.py %t/argv.cu %t/argv.tpl.cu %t/argv.tpl.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX
// RUN: grep -v -e '^// ' -e '^#line ' %t/argv.tpl.cu | FileCheck %s --check-prefix=ARGV
// RUN: %python %inputs/refactor/summarize.py < %t/argv.tpl.json | FileCheck %s --check-prefix=MANIFEST
// RUN: ktune-refactor %t/unnamed.cu -o %t/unnamed.tpl.cu 2>&1 | FileCheck %s --check-prefix=UNNAMED

//--- argv.cu
#include <cstdio>
#define N 4096
__global__ void fill(float *x) { x[blockIdx.x * blockDim.x + threadIdx.x] = 1; }
int main(int argc, char **argv) {
  float *x;
  cudaMalloc(&x, N * sizeof(float));
  fill<<<N / 256, 256>>>(x);
  printf("%d\n", argc);
}

//--- unnamed.cu
__global__ void fill(float *x) { x[blockIdx.x * blockDim.x + threadIdx.x] = 1; }
int main(int, char **) {
  fill<<<16, 256>>>(nullptr);
  return 0;
}

// ARGV:      template <int BLOCK_SIZE = 256>
// ARGV-NEXT: int ktune_main(int argc, char **argv) {
// ARGV:        fill<<<N / BLOCK_SIZE, BLOCK_SIZE>>>(x);
// ARGV-NEXT:   printf("%d\n", argc);
// ARGV-NEXT: return 0; }
// ARGV-EMPTY:
// ARGV-NEXT: int main(int argc, char **argv) {
// ARGV-NEXT:   return ktune_main<256>(argc, argv);
// ARGV-NEXT: }

// MANIFEST: KERNEL fill
// MANIFEST:   LAUNCH grid=['4096 / BLOCK_SIZE'] block=['BLOCK_SIZE'] smem=0
// MANIFEST: LAUNCHER ktune_main

// PTX: ptx-identical: 1 function(s) identical

// UNNAMED: note: {{.*}}unnamed.cu:3: the launch of fill in main keeps the default configuration: main cannot become a template (no forwarding overload can keep its symbol (unnamed parameters, or a deduced return type))
