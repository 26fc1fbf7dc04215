// A launcher that is a member of a class template, defined out of line
// (`template <typename T> void Scaler<T>::run(...)`, warp-ctc's GpuCTC
// members): its own template list goes after the class's, the defaults on
// the declaration in the class only. Callers in and out of the class take
// the defaults, and the default compiles to the same PTX.
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s -o %t/out.cu --verify 2> %t/stderr.txt
// RUN: FileCheck %s --check-prefix=NOTE < %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' -e static_assert %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX

template <typename T> __global__ void scale_kernel(T *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= T(2);
}

template <typename T> struct Scaler {
  void run(T *x, int n);
  void twice(T *x, int n) {
    run(x, n);
    run(x, n);
  }
};

template <typename T>
void Scaler<T>::run(T *x, int n) {
  const int threads = 256;
  scale_kernel<T><<<(n + threads - 1) / threads, threads>>>(x, n);
}

void scale_twice(float *x, int n) {
  Scaler<float> s;
  s.twice(x, n);
}

// NOTE: self-check: {{[0-9]+}} function(s) PTX-identical at the defaults
// TPL:      template <typename T> struct Scaler {
// TPL-NEXT:   template <int BLOCK_SIZE = 256>
// TPL-NEXT:   void run(T *x, int n);
// TPL:      template <typename T>
// TPL-NEXT: template <int BLOCK_SIZE>
// TPL-NEXT: void Scaler<T>::run(T *x, int n) {
// TPL-NEXT:   const int threads = BLOCK_SIZE;
// PTX: ptx-identical: {{[0-9]+}} function(s) identical
