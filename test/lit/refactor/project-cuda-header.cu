// A project header named like one Clang's CUDA wrapper includes (darknet's
// src/cuda.h, found through -I): nvcc never includes that name itself, so
// the wrapper gets the toolkit's copy and the project's files still get the
// project's, from their own directory and from others through -I.
// REQUIRES: clang, cuda-toolkit
// RUN: rm -rf %t && mkdir -p %t/src %t/other
// RUN: printf '#pragma once\nvoid check_error(cudaError_t status);\n#define BLOCK 512\n' > %t/src/cuda.h
// RUN: cp %s %t/src/kernels.cu
// RUN: printf '#include "cuda.h"\n__global__ void fill(float *x) { x[threadIdx.x] = 1; }\nvoid run(float *x) { fill<<<1, BLOCK>>>(x); check_error(cudaGetLastError()); }\n' > %t/other/more.cu
// RUN: cd %t && ktune-refactor src/kernels.cu -o out.cu -- -Isrc 2>&1 | FileCheck %s
// RUN: cd %t && ktune-refactor other/more.cu -o more.tpl.cu -- -Isrc 2>&1 | FileCheck %s --check-prefix=OTHER
// RUN: cd %t && not ktune-refactor other/more.cu -o more.tpl.cu 2>&1 | FileCheck %s --check-prefix=NOFLAG

#include "cuda.h"

__global__ void scale(float *x, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n)
    x[i] *= 2;
}

void run_scale(float *x, int n) {
  scale<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(x, n);
  check_error(cudaGetLastError());
}

// CHECK: wrote out.cu and out.json: 1 parameter in 1 kernel
// OTHER: wrote more.tpl.cu and more.tpl.json: 1 parameter in 1 kernel
// Without -Isrc the toolkit's cuda.h is the one found: no BLOCK.
// NOFLAG: use of undeclared identifier 'BLOCK'
