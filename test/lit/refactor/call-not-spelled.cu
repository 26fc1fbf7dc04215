// A call of a launcher that cannot be given template arguments (here a
// member template of a project header's class, called from an out-of-line
// member in the main file) keeps the launcher's default configuration: its
// caller stays as it is, with a note, and the launcher is still lifted in
// the header's copy. The file was refused whole before (cuda-convnet2's
// NVMatrix). PTX-identical at the defaults (--verify).
// REQUIRES: clang
// RUN: rm -rf %t && split-file %s %t
// RUN: cd %t && ktune-refactor mat.cu --out-dir %t/out --verify -- -Iinclude 2> %t/stderr.txt
// RUN: FileCheck %s --check-prefix=NOTE < %t/stderr.txt
// RUN: grep -v -e '^#line ' %t/out/include/mat.cuh | FileCheck %s --check-prefix=HDR
// RUN: grep -v -e '^// ' -e '^#line ' %t/out/mat.tpl.cu | FileCheck %s --check-prefix=TPL

// NOTE: mat.cu:2: the call of Mat::apply in Mat::twice keeps the callee's default configuration: cannot pass template arguments: the call is not spelled in this file
// NOTE: PTX-identical at the defaults
// NOTE: wrote {{.*}}mat.tpl.cu, 1 header and {{.*}}: 2 parameters in 1 kernel

// HDR:      template <class Op, int GRID_SIZE = 64, int BLOCK_SIZE = 128> void apply(Op op) {
// HDR:        kApply<<<GRID_SIZE, BLOCK_SIZE>>>(data, n, op);
// HDR:        void twice();

// TPL:      void Mat::twice() { apply(Twice()); }

//--- include/mat.cuh
#pragma once
template <class Op>
__global__ void kApply(float *x, int n, Op op) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    x[i] = op(x[i]);
}
struct Twice {
  __device__ float operator()(float v) const { return 2.0f * v; }
};
class Mat {
public:
  template <class Op> void apply(Op op) {
    kApply<<<64, 128>>>(data, n, op);
  }
  void twice();
  float *data;
  int n;
};

//--- mat.cu
#include "mat.cuh"
void Mat::twice() { apply(Twice()); }
