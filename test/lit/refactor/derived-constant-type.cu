// A constant derived from a lifted one keeps its declared type where its
// uses are written out (DeepSpeed's `constexpr int vals_per_h = granularity
// / sizeof(__half)`): `threadIdx.x * vals_per_h` stays 32-bit arithmetic,
// so the default instantiation's PTX is the original's.
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX

#include <cuda_fp16.h>

namespace badd {
constexpr int threads = 256;
constexpr int granularity = 16;
constexpr int vals_per_h = granularity / sizeof(__half);
constexpr int vals_per_block = threads * vals_per_h;
} // namespace badd

template <int Bytes> __device__ void load_global(void *dst, const void *src) {
  for (int i = 0; i < Bytes; ++i)
    static_cast<char *>(dst)[i] = static_cast<const char *>(src)[i];
}

__global__ void bias_add(__half *out, const __half *act, const __half *bias, int n, int channels) {
  const int id = blockIdx.x * badd::vals_per_block + threadIdx.x * badd::vals_per_h;
  __half buffer[badd::vals_per_h];
  if (id < n) {
    load_global<badd::granularity>(buffer, act + id);
    for (int j = 0; j < badd::vals_per_h; j++)
      out[id + j] = buffer[j] + bias[(id + j) % channels];
  }
}

void launch(__half *out, const __half *act, const __half *bias, int n, int channels) {
  int blocks = (n + badd::vals_per_block - 1) / badd::vals_per_block;
  bias_add<<<blocks, badd::threads>>>(out, act, bias, n, channels);
}

// TPL: threadIdx.x * static_cast<int>(ITEMS_PER_THREAD / sizeof(__half));
// TPL: __half buffer[static_cast<int>(ITEMS_PER_THREAD / sizeof(__half))];
// PTX: ptx-identical: 1 function(s) identical
