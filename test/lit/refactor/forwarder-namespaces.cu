// Two launchers of one name and signature, one at file scope and one in a
// namespace the file brings in with `using namespace`: each forwarder calls
// its own template by its qualified name (unqualified, the one at file
// scope would find both templates: ambiguous).
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s -o %t/out.cu
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %nvcc -std=c++17 -arch=sm_90 -c %t/out.cu -o %t/out.o
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX

#include <cuda_runtime.h>

namespace plugin {
int anchors(cudaStream_t stream, float *out, int n);
}
using namespace plugin;

template <int BS>
__global__ void anchor_kernel(float *out, int n) {
  int i = blockIdx.x * BS + threadIdx.x;
  if (i < n)
    out[i] = float(i);
}

int anchors(cudaStream_t stream, float *out, int n) {
  const int BS = 128;
  anchor_kernel<BS><<<(n + BS - 1) / BS, BS, 0, stream>>>(out, n);
  return 0;
}

namespace plugin {
int anchors(cudaStream_t stream, float *out, int n) {
  const int BS = 64;
  anchor_kernel<BS><<<(n + BS - 1) / BS, BS, 0, stream>>>(out, n);
  return 1;
}
} // namespace plugin

// TPL: return 0;
// TPL: int anchors(cudaStream_t stream, float *out, int n) {
// TPL-NEXT: return ::anchors<128, 64>(stream, out, n);
// TPL: return 1;
// TPL: int anchors(cudaStream_t stream, float *out, int n) {
// TPL-NEXT: return ::plugin::anchors<128, 64>(stream, out, n);

// PTX: ptx-identical: {{[0-9]+}} function(s) identical
