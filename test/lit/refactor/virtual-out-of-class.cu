// A virtual member function defined out of its class (InfiniTAM's engines,
// declared `virtual` in a project header's class): its body moves to a
// member template the class declares beside it, without `virtual` or
// `override`; the virtual function keeps its symbol and calls the template
// with the defaults.
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: FileCheck %s < %t/out.cu
// RUN: FileCheck %s --check-prefix=NOTE < %t/stderr.txt
// RUN: %nvcc -std=c++17 -arch=sm_90 -c %t/out.cu -o %t/out.o
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX

struct Engine {
  virtual ~Engine() {}
  virtual void Fill(float *out, int n) = 0;
};

struct CudaEngine : Engine {
  void Fill(float *out, int n) override;
  virtual void Scale(float *out, float s, int n);
};

__global__ void fill(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = 1.f;
}

__global__ void scale(float *out, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] *= s;
}

void CudaEngine::Fill(float *out, int n) {
  dim3 block(128);
  fill<<<(n + block.x - 1) / block.x, block>>>(out, n);
}

void CudaEngine::Scale(float *out, float s, int n) {
  scale<<<(n + 255) / 256, 256>>>(out, s, n);
}

// CHECK:      void Fill(float *out, int n) override;
// CHECK-NEXT: template <int BLOCK_SIZE = 128> void [[FILL:[A-Za-z_]+]](float *out, int n);
// CHECK:      virtual void Scale(float *out, float s, int n);
// CHECK-NEXT: template <int BLOCK_SIZE = 256> void [[SCALE:[A-Za-z_]+]](float *out, float s, int n);
// CHECK:      void CudaEngine::[[FILL]](float *out, int n) {
// CHECK:      void CudaEngine::Fill(float *out, int n) {
// CHECK-NEXT:   return [[FILL]]<128>(out, n);
// CHECK:      void CudaEngine::Scale(float *out, float s, int n) {
// CHECK-NEXT:   return [[SCALE]]<256>(out, s, n);

// NOTE-NOT: cannot become a template
// NOTE: wrote

// PTX: identical
