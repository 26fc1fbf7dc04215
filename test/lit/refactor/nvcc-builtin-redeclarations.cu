// Host code written for nvcc may declare the builtin variables with nvcc's
// types (`extern const dim3 blockDim;`, as mining and benchmark suites do
// for host-side helpers). Clang declares them with types of its own, so
// the redeclaration is an error on Clang's host side only; every use
// still names Clang's builtin, so the file is analysed, with a note. Any
// other error outside a function still refuses the file
// (recovered-host-errors.cu).
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s -o %t/out.cu --verify 2> %t/stderr.txt
// RUN: FileCheck %s --check-prefix=NOTE < %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL

#include <cuda_runtime.h>

#ifndef __CUDA_ARCH__
extern const dim3 blockDim;
extern const uint3 threadIdx;
#endif

#define TPB 128

__global__ void fill(unsigned *out, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = i;
}

void launch_fill(unsigned *out, unsigned n) {
  fill<<<(n + TPB - 1) / TPB, TPB>>>(out, n);
}

// NOTE: redeclaration of 'blockDim' with a different type
// NOTE: PTX-identical at the defaults
// NOTE: wrote {{.*}}out.cu and {{.*}}out.json: 1 parameter

// TPL:      extern const dim3 blockDim;
// TPL:      template <int BLOCK_SIZE = 128>
// TPL-NEXT: void launch_fill(unsigned *out, unsigned n) {
// TPL:        fill<<<(n + BLOCK_SIZE - 1) / BLOCK_SIZE, BLOCK_SIZE>>>(out, n);
