// A kernel that was no template and that nothing in the file launches keeps
// its code in the output: once lifted it is a template, so an explicit
// instantiation at its defaults follows its definition (code in other files
// that links to it, or loads it by name, still finds an instance). A kernel
// launched here, or one that was a template already, gets none (the
// template's own explicit instantiation keeps working: the new parameter
// has a default).
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s -o %t/out.cu 2> /dev/null
// RUN: grep -v -e '^// ' %t/out.cu | FileCheck %s
// RUN: %python %inputs/refactor/summarize.py < %t/out.json | FileCheck %s --check-prefix=MANIFEST

namespace ops {

__global__ void __launch_bounds__(128) fill(float *x, float v) {
  x[blockIdx.x * 128 + threadIdx.x] = v;
}

template <typename T>
__global__ void __launch_bounds__(256) copy(T *y, const T *x) {
  y[blockIdx.x * 256 + threadIdx.x] = x[blockIdx.x * 256 + threadIdx.x];
}
template __global__ void copy<float>(float *, const float *);

__global__ void __launch_bounds__(64) zero(float *x) {
  x[blockIdx.x * 64 + threadIdx.x] = 0.0f;
}

} // namespace ops

void zero_all(float *x, int blocks) { ops::zero<<<blocks, 64>>>(x); }

// CHECK:      template <int BLOCK_SIZE = 128>
// CHECK-NEXT: #line 16
// CHECK-NEXT: __global__ void __launch_bounds__(BLOCK_SIZE) fill(float *x, float v) {
// CHECK:      }
// CHECK-NEXT: template __global__ void fill<128>(float *, float);
// CHECK-NEXT: #line 19
// CHECK:      template <typename T, int BLOCK_SIZE = 256>
// CHECK:      }
// CHECK-NEXT: template __global__ void copy<float>(float *, const float *);
// CHECK-NOT:  template __global__
// CHECK:      __global__ void __launch_bounds__(BLOCK_SIZE) zero(float *x) {
// CHECK-NOT:  template __global__

// MANIFEST:      KERNEL ops::fill
// MANIFEST:        EXPLICIT-INSTANTIATION
// MANIFEST:      KERNEL ops::copy
// MANIFEST-NOT:    EXPLICIT-INSTANTIATION
// MANIFEST:      KERNEL ops::zero
// MANIFEST-NOT:    EXPLICIT-INSTANTIATION
