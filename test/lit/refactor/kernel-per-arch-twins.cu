// A kernel defined per architecture: one definition where __CUDA_ARCH__ >=
// 300, another in the #else branch, which only the host side reads (the
// CUDA Handbook's n-body kernels). A parameter lifted in the device
// definition must exist in the host side's too, or the launch's template
// argument names no template there: the twin gets the same template
// parameters, with their defaults.
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: FileCheck %s < %t/out.cu
// RUN: %nvcc -std=c++17 -arch=sm_90 -c %t/out.cu -o %t/out.o
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 300
__global__ void gather(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.f;
#pragma unroll 4
  for (int k = 0; k < 16; ++k)
    acc += __shfl_sync(0xffffffff, in[(i + k) % n], k);
  if (i < n)
    out[i] = acc;
}
#else
__global__ void gather(float *out, const float *in, int n) {}
#endif

void run(float *out, const float *in, int n) {
  gather<<<(n + 255) / 256, 256>>>(out, in, n);
}

// CHECK:      template <int UNROLL = 4>
// CHECK-NEXT: {{^}}#line
// CHECK-NEXT: __global__ void gather(float *out, const float *in, int n) {
// CHECK:      #pragma unroll UNROLL
// CHECK:      template <int UNROLL = 4>
// CHECK-NEXT: {{^}}#line
// CHECK-NEXT: __global__ void gather(float *out, const float *in, int n) {}
// CHECK:      gather<UNROLL><<<

// PTX: identical
