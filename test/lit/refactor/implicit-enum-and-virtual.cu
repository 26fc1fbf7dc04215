// A launch whose enum template argument is deduced gets it spelled as the
// enumerator when the launch gains template arguments (an integer converts
// to no enum parameter). A virtual member function of a class template
// (`override`), defined out of its class: its body moves to a member
// template the class declares beside it, which it calls with the defaults.
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

// TPL:      void dot(float *x) override;
// TPL-NEXT: template <int BLOCK_SIZE = 1024> void [[DOT:[A-Za-z_]+]](float *x);
// TPL:      template <class T> template <int BLOCK_SIZE>
// TPL-NEXT: void CudaStream<T>::[[DOT]](float *x) {
// TPL:        dot_kernel<<<1, BLOCK_SIZE>>>(x);
// TPL:      template <class T> void CudaStream<T>::dot(float *x) {
// TPL-NEXT:   return [[DOT]]<1024>(x);

// NOTE-NOT: cannot become a template
// NOTE: wrote
// PTX: ptx-identical: {{[1-9][0-9]*}} function(s) identical
