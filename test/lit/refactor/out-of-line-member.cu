// A member function defined out of its class (`void Prog::scale(...)`,
// declared in a project header that other files include) is what those
// files call: it stays a plain member, forwarding its defaults, and its
// body moves to a member template (`ktune_scale`) that the class declares
// beside it, in the output's copy of the header; calls of the member are
// left as they are. So does a member of a class template declared in
// another file (`template <typename T> void Grid<T>::fill(...)`, whose
// instantiations other files call). A virtual one's template is declared
// without `virtual`; the virtual member keeps its symbol and calls it.
// Kept, with a note: a member whose class declares it through a macro.
// PTX-identical at the defaults (--verify), and another configuration
// compiles.
// REQUIRES: clang
// RUN: rm -rf %t && split-file %s %t
// RUN: cd %t && ktune-refactor prog.cu --out-dir %t/out --verify -- -Iinclude 2> %t/stderr.txt
// RUN: FileCheck %s --check-prefix=NOTE < %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out/prog.tpl.cu | FileCheck %s --check-prefix=TPL
// RUN: grep -v -e '^// ' -e '^#line ' %t/out/include/prog.h | FileCheck %s --check-prefix=HDR
// RUN: printf '#include "%t/out/prog.tpl.cu"\ntemplate void Prog::ktune_fill<64>(float *, int) const;\ntemplate void Grid<float>::ktune_fill<512>(float *, int);\n' > %t/other.cu
// RUN: %if nvcc %{ %nvcc -std=c++17 -arch=sm_90 -c %t/other.cu -I%t/out/include -o %t/other.o %}

// NOTE: prog.cu:21: the launch of fill_kernel in Prog::reset keeps the default configuration: Prog::reset cannot become a template (it is a member function defined out of its class, whose declaration other files call, and the class's declaration of it cannot declare a template beside it)
// NOTE-NOT: Prog::redo cannot become a template
// NOTE: PTX-identical at the defaults
// NOTE: wrote {{.*}}prog.tpl.cu, 1 header and {{.*}}prog.tpl.json

// TPL:      template <int BLOCK_SIZE = 128>
// TPL-NEXT: __global__ void scale_kernel(float *x, int n) {
// TPL:      template <int BLOCK_SIZE>
// TPL-NEXT: void Prog::ktune_scale(float *x, int n) { scale_kernel<BLOCK_SIZE><<<(n + BLOCK_SIZE - 1) / BLOCK_SIZE, BLOCK_SIZE>>>(x, n); }
// TPL:      void Prog::scale(float *x, int n) {
// TPL-NEXT:   return ktune_scale<128>(x, n);
// TPL:      template <int BLOCK_SIZE>
// TPL-NEXT: void Prog::ktune_fill(float *x, int n) const {
// TPL:      fill_kernel<<<(n + (BLOCK_SIZE - 1)) / BLOCK_SIZE, BLOCK_SIZE>>>(x, n); }
// TPL:      void Prog::fill(float *x, int n) const {
// TPL-NEXT:   return ktune_fill<256>(x, n);
// TPL:      void Prog::reset(float *x, int n) { fill_kernel<<<(n + 255) / 256, 256>>>(x, n); }
// TPL:      template <int BLOCK_SIZE>
// TPL-NEXT: void Prog::ktune_redo(float *x, int n) {
// TPL:      void Prog::redo(float *x, int n) {
// TPL-NEXT:   return ktune_redo<256>(x, n);
// TPL:      template <typename T> template <int BLOCK_SIZE_2>
// TPL-NEXT: void Grid<T>::ktune_fill(T *x, int n) {
// TPL:      template <typename T> void Grid<T>::fill(T *x, int n) {
// TPL-NEXT:   return ktune_fill<1024>(x, n);
// TPL:      void run(Prog &p, float *x, int n) {
// TPL-NEXT:   p.fill(x, n);
// TPL:      template class Grid<float>;

// HDR:      static void scale(float *x, int n);
// HDR-NEXT: template <int BLOCK_SIZE = 128> static void ktune_scale(float *x, int n);
// HDR:      void fill(float *x, int n) const;
// HDR-NEXT: template <int BLOCK_SIZE = 256> void ktune_fill(float *x, int n) const;
// HDR:      DECLARE_RESET
// HDR-NEXT: virtual void redo(float *x, int n);
// HDR-NEXT: template <int BLOCK_SIZE = 256> void ktune_redo(float *x, int n);
// HDR-NEXT: };
// HDR:      void fill(T *x, int n);
// HDR-NEXT: template <int BLOCK_SIZE_2 = 1024> void ktune_fill(T *x, int n);

//--- include/prog.h
#pragma once
#define DECLARE_RESET void reset(float *x, int n);
struct Prog {
  static void scale(float *x, int n);
  void fill(float *x, int n) const;
  DECLARE_RESET
  virtual void redo(float *x, int n);
};

template <typename T> struct Grid {
  void fill(T *x, int n);
};

//--- prog.cu
#include "prog.h"

#define TPB 128

__global__ void scale_kernel(float *x, int n) {
  int i = blockIdx.x * TPB + threadIdx.x;
  if (i < n)
    x[i] *= 2.0f;
}

template <typename T> __global__ void fill_kernel(T *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = T(1);
}

void Prog::scale(float *x, int n) { scale_kernel<<<(n + TPB - 1) / TPB, TPB>>>(x, n); }

void Prog::fill(float *x, int n) const { fill_kernel<<<(n + 255) / 256, 256>>>(x, n); }

void Prog::reset(float *x, int n) { fill_kernel<<<(n + 255) / 256, 256>>>(x, n); }

void Prog::redo(float *x, int n) { fill_kernel<<<(n + 255) / 256, 256>>>(x, n); }

template <typename T> void Grid<T>::fill(T *x, int n) {
  fill_kernel<T><<<(n + 1023) / 1024, 1024>>>(x, n);
}

void run(Prog &p, float *x, int n) {
  p.fill(x, n);
}

template class Grid<float>;
