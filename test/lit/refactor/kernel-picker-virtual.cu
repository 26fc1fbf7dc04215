// A kernel chosen by a picker function and launched from a virtual member
// (TNN's `Forward`) that cannot become a template (an unnamed parameter: no
// forwarder can pass it on to a member template): the launch keeps its
// configuration, with a note; the picker becomes a template whose original
// symbol forwards its defaults, so the launch still runs the default
// instantiation with the default geometry.
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: FileCheck %s --check-prefix=NOTE < %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX

const int THREADS = 128;

typedef void (*fp_k)(float *, int);

template <bool neg>
__global__ void k(float *x, int n) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  if (i < n)
    x[i] = neg ? -x[i] : x[i] * 2.0f;
}

fp_k k_pick(bool neg) {
  if (neg)
    return k<true>;
  return k<false>;
}

struct Layer {
  virtual void forward(float *x, int n, bool neg, void *);
};

void Layer::forward(float *x, int n, bool neg, void *) {
  fp_k kernel = k_pick(neg);
  kernel<<<(n + THREADS - 1) / THREADS, THREADS>>>(x, n);
}

// NOTE: the launch of k in Layer::forward keeps the default configuration: Layer::forward cannot become a template (no forwarding overload can keep its symbol (unnamed parameters, or a deduced return type))
// TPL:      template <bool neg, int [[P:[A-Z_]+]] = 128>
// TPL:      template <int [[P]] = 128>
// TPL-NEXT: fp_k k_pick(bool neg) {
// TPL:      return k<true, [[P]]>;
// TPL:      fp_k k_pick(bool neg) {
// TPL-NEXT:   return k_pick<128>(neg);
// TPL:      void Layer::forward(float *x, int n, bool neg, void *) {
// TPL-NEXT:   fp_k kernel = k_pick(neg);
// TPL-NEXT:   kernel<<<(n + THREADS - 1) / THREADS, THREADS>>>(x, n);
// PTX: ptx-identical: {{[0-9]+}} function(s) identical
