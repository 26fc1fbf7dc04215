// A kernel sharing its name with a host function of the file (CudaSift's
// ScaleDown kernel beside its ScaleDown(CudaImage &, ...) driver): once the
// kernel is a template, `&ScaleDown<64>` alone names no one function, so
// both PTX checkers instantiate its defaults through a pointer of the
// original's parameter types.
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s -o %t/out.cu --verify 2> %t/stderr.txt
// RUN: FileCheck %s --check-prefix=NOTE < %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX

struct Image {
  float *data;
  int width;
};

__global__ void scale_down(float *out, const float *in, int width) {
  int i = blockIdx.x * 64 + threadIdx.x;
  if (i < width / 2)
    out[i] = 0.5f * (in[2 * i] + in[2 * i + 1]);
}

double scale_down(Image &res, Image &src) {
  scale_down<<<(res.width + 63) / 64, 64>>>(res.data, src.data, src.width);
  return 0.0;
}

// TPL:      template <int BLOCK_SIZE = 64>
// TPL-NEXT: __global__ void scale_down(float *out, const float *in, int width) {
// NOTE:     self-check: {{.*}}identical
// PTX:      identical
