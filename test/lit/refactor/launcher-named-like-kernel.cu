// A host function sharing its name with a function template in its scope
// (dietgpu's launcher `checksumBatch<InProvider>` beside its kernel
// `checksumBatch<InProvider, Threads>`): once the launcher takes one more
// template parameter, `checksumBatch<InProvider, kThreads>` names either,
// and the output does not compile. A launcher that is a template keeps its
// configuration, with a note; one that is not becomes a template of another
// name, the original forwarding its defaults.
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: FileCheck %s --check-prefix=NOTE < %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %nvcc -std=c++17 -arch=sm_90 -c %t/out.cu -o %t/out.o
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX

#include <cstdint>

namespace ns {
template <typename T, int Threads>
__global__ void total(const T *in, float *out) {
  if (threadIdx.x < Threads) atomicAdd(out, float(in[blockIdx.x * Threads + threadIdx.x]));
}

template <typename T>
void total(const T *in, float *out, int n, cudaStream_t stream) {
  constexpr uint32_t kThreads = 256;
  int maxBlocks = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&maxBlocks, total<T, kThreads>, kThreads, 0);
  total<T, kThreads><<<(n + kThreads - 1) / kThreads, kThreads, 0, stream>>>(in, out);
}
template void total<float>(const float *, float *, int, cudaStream_t);

__global__ void sum(const double *in, double *out) {
  atomicAdd(out, in[blockIdx.x * 128 + threadIdx.x]);
}
template <int Threads> __global__ void sum(const float *in, float *out) {
  atomicAdd(out, in[blockIdx.x * Threads + threadIdx.x]);
}

void sum(const float *in, float *out, int n) {
  constexpr int kThreads = 128;
  sum<kThreads><<<n / kThreads, kThreads>>>(in, out);
}
} // namespace ns

// NOTE: note: {{.*}}: the launch of ns::total in ns::total keeps the default configuration: ns::total cannot become a template (it shares its name with the function template on line 20: with one more template parameter, a name with template arguments (`total<...>`) could mean either)
// TPL:      template <typename T>
// TPL-NEXT: void total(const T *in, float *out, int n, cudaStream_t stream) {
// TPL-NEXT:   constexpr uint32_t kThreads = 256;
// TPL:      void ktune_sum{{_*}}(const float *in, float *out, int n) {
// TPL-NEXT:   constexpr int kThreads = BLOCK_SIZE;
// TPL:      void sum(const float *in, float *out, int n) {
// TPL-NEXT:   return ktune_sum{{_*}}<128>(in, out, n);
// PTX: ptx-identical: {{[0-9]+}} function(s) identical
