// Overloaded kernel templates (vLLM's enable_if pairs on a vector width):
// nvcc's host stubs need the overloads' template parameters alike, so
// neither overload gains a parameter; a kernel beside them still does.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: FileCheck %s --check-prefix=NOTE < %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL

#include <type_traits>

template <typename T, int width>
__global__ std::enable_if_t<(width > 0)> add(T *x, int n) {
  __shared__ T tile[256];
  tile[threadIdx.x] = x[threadIdx.x] * width;
  __syncthreads();
  x[threadIdx.x] = tile[255 - threadIdx.x];
}

template <typename T, int width>
__global__ std::enable_if_t<(width == 0)> add(T *x, int n) {
  __shared__ T tile[256];
  tile[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  x[threadIdx.x] = tile[255 - threadIdx.x];
}

__global__ void scale(float *x) {
  __shared__ float tile[128];
  tile[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  x[threadIdx.x] = tile[127 - threadIdx.x];
}

void run(float *x, int n) {
  if (n % 4 == 0)
    add<float, 4><<<1, 256>>>(x, n);
  else
    add<float, 0><<<1, 256>>>(x, n);
  scale<<<1, 128>>>(x);
}

// NOTE: kernel add cannot become a template (it is an overloaded kernel (nvcc needs the overloads' template parameters alike)): nothing in its code is lifted
// NOTE: wrote {{.*}}: 1 parameter in 1 kernel
// TPL:      template <typename T, int width>
// TPL-NEXT: __global__ std::enable_if_t<(width > 0)> add(T *x, int n) {
// TPL-NEXT:   __shared__ T tile[256];
// TPL:      template <int BLOCK_SIZE = 128>
// TPL-NEXT: __global__ void scale(float *x) {
// TPL:        add<float, 4><<<1, 256>>>(x, n);
