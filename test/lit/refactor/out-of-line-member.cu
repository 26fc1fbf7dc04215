// A member function defined out of its class (`void Prog::scale(...)`,
// declared in a project header that other files include) is what those
// files call: it does not become a template (a member template would leave
// them no symbol to call, and its kernels uninstantiated in this file), so
// its launches keep their values, with a note; the kernel's own constants
// are still lifted. PTX-identical at the defaults (--verify).
// REQUIRES: clang
// RUN: rm -rf %t && split-file %s %t
// RUN: cd %t && ktune-refactor prog.cu --out-dir %t/out --verify -- -Iinclude 2> %t/stderr.txt
// RUN: FileCheck %s --check-prefix=NOTE < %t/stderr.txt
// RUN: not test -e %t/out/include/prog.h
// RUN: grep -v -e '^// ' -e '^#line ' %t/out/prog.tpl.cu | FileCheck %s --check-prefix=TPL

// NOTE: prog.cu:17: the launch of scale_kernel in Prog::scale keeps the default configuration: Prog::scale cannot become a template (it is a member function defined out of its class, whose declaration other files call)
// NOTE: prog.cu:19: the launch of fill_kernel in Prog::fill keeps the default configuration
// NOTE: PTX-identical at the defaults
// NOTE: wrote {{.*}}prog.tpl.cu and {{.*}}prog.tpl.json: 1 parameter in 2 kernels

// TPL:      template <int BLOCK_SIZE = 128>
// TPL-NEXT: __global__ void scale_kernel(float *x, int n) {
// TPL:      void Prog::scale(float *x, int n) { scale_kernel<<<(n + TPB - 1) / TPB, TPB>>>(x, n); }
// TPL:      void Prog::fill(float *x, int n) { fill_kernel<<<(n + 255) / 256, 256>>>(x, n); }

//--- include/prog.h
#pragma once
struct Prog {
  static void scale(float *x, int n);
  static void fill(float *x, int n);
};

//--- prog.cu
#include "prog.h"

#define TPB 128

__global__ void scale_kernel(float *x, int n) {
  int i = blockIdx.x * TPB + threadIdx.x;
  if (i < n)
    x[i] *= 2.0f;
}

__global__ void fill_kernel(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = 1.0f;
}

void Prog::scale(float *x, int n) { scale_kernel<<<(n + TPB - 1) / TPB, TPB>>>(x, n); }

void Prog::fill(float *x, int n) { fill_kernel<<<(n + 255) / 256, 256>>>(x, n); }
