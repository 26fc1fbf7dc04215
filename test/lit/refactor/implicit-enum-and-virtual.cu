// A launch whose enum template argument is deduced gets it spelled as the
// enumerator when the launch gains template arguments (an integer converts
// to no enum parameter). A virtual member function (`override`, in a class
// template too) cannot become a template: its launch keeps its values, with
// a note, and the output compiles.
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/notes.txt
// RUN: FileCheck %s --check-prefix=NOTE < %t/notes.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %nvcc -std=c++17 -arch=sm_90 -w -c %t/out.cu -o %t/out.o
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX

enum Op { SUM, MAX };
template <Op O, typename R> struct Red { R init; };

template <Op O, typename R>
__global__ void colred(R *out, Red<O, R> op) {
  __shared__ R partial[256];
  partial[threadIdx.x] = O == MAX ? op.init : R(0);
  __syncthreads();
  out[threadIdx.x] = partial[255 - threadIdx.x];
}

void reduce(float *out) {
  colred<<<4, 256>>>(out, Red<MAX, float>{1.0f});
}

// TPL: colred<Op::MAX, float, {{[A-Z_0-9]+}}><<<
// TPL-NOT: colred<1,

struct Stream { virtual void dot(float *x) = 0; virtual ~Stream() {} };
template <class T> __global__ void dot_kernel(T *x) { x[threadIdx.x] *= 2; }
template <class T> struct CudaStream : Stream {
  void dot(float *x) override;
};
template <class T> void CudaStream<T>::dot(float *x) {
  dot_kernel<<<1, 1024>>>(x);
}
template struct CudaStream<float>;

// NOTE: cannot become a template (it is a virtual member function)
// PTX: ptx-identical: {{[1-9][0-9]*}} function(s) identical
