// A kernel picked from a local table of its instantiations
// (`kernel[t_size - 1]<<<grid, BS>>>()`, `void (*kernel[4])(...) = {K<1>,
// K<2>, ...}`) is a launch of each entry: the block the launch spells is
// the kernel's, the entries' template arguments as at any launch (a
// per-entry value, spelled differently by each, selects; a constant all
// spell alike is a site). Not a table: an array some entry of which is no
// kernel, or one the function writes.
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2>&1 | FileCheck %s
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX

#include <cuda_runtime.h>

// Each thread keeps TSIZE items; the block's width is read from blockDim.
template <typename T, int TSIZE>
__global__ void keep_top(const T *in, T *out, int n) {
  extern __shared__ unsigned char flags[];
  for (int t = 0; t < TSIZE; ++t) {
    int i = blockIdx.x * n + t * blockDim.x + threadIdx.x;
    flags[t * blockDim.x + threadIdx.x] = i < n && in[i] > T(0);
  }
  __syncthreads();
  for (int t = 0; t < TSIZE; ++t) {
    int i = blockIdx.x * n + t * blockDim.x + threadIdx.x;
    if (i < n)
      out[i] = flags[t * blockDim.x + threadIdx.x] ? in[i] : T(0);
  }
}

template <typename T>
void keep_top_gpu(const T *in, T *out, int n, int rows, cudaStream_t s) {
#define K(tsize) keep_top<T, (tsize)>
  void (*kernel[4])(const T *, T *, int) = {K(1), K(2), K(3), K(4)};
#undef K
  const int BS = 512;
  const int t_size = (n + BS - 1) / BS;
  kernel[t_size - 1]<<<rows, BS, BS * t_size, s>>>(in, out, n);
}
template void keep_top_gpu<float>(const float *, float *, int, int, cudaStream_t);

// The block is also every entry's template argument.
template <int DIM, int TSIZE>
__global__ void scan_rows(const float *in, float *out, int n) {
  __shared__ float row[DIM];
  for (int t = 0; t < TSIZE; ++t) {
    row[threadIdx.x] = in[blockIdx.x * n + t * DIM + threadIdx.x];
    __syncthreads();
    out[blockIdx.x * n + t * DIM + threadIdx.x] = row[(threadIdx.x + 1) % DIM];
    __syncthreads();
  }
}

void scan_rows_gpu(const float *in, float *out, int n, int rows, cudaStream_t s) {
  const int blockSize = 256;
  void (*kernel[2])(const float *, float *, int) = {scan_rows<blockSize, 1>,
                                                    scan_rows<blockSize, 2>};
  kernel[(n + blockSize - 1) / blockSize - 1]<<<rows, blockSize, 0, s>>>(in, out, n);
}

// Refused: an entry that is no kernel, and a table the function writes.
__global__ void fill(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = 1.0f;
}
__global__ void fill_twice(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = 2.0f;
}
void fill_gpu(float *out, int n, int which, cudaStream_t s) {
  void (*written[2])(float *, int) = {fill, fill};
  written[1] = fill_twice;
  written[which]<<<(n + 127) / 128, 128, 0, s>>>(out, n);
  void (*mixed[2])(float *, int) = {fill, nullptr};
  mixed[0]<<<(n + 63) / 64, 64, 0, s>>>(out, n);
}

// CAND: CAND block_size keep_top value=512 spelling=BS high launch-param
// CAND-NEXT: SITE 39:18 definition '512' -> {P}
// CAND: CAND block_size scan_rows value=256 spelling=blockSize high
// CAND-NEXT: SITE 58:25 definition '256' -> {P}
// CAND-NOT: CAND {{.*}} fill

// CHECK: wrote {{.*}}: 2 parameters in 2 kernels

// TPL: template <typename T, int BLOCK_SIZE = 512>
// TPL-NEXT: void keep_top_gpu(
// TPL: const int BS = BLOCK_SIZE;
// TPL: kernel[t_size - 1]<<<rows, BS, BS * t_size, s>>>(in, out, n);
// TPL: template <int BLOCK_SIZE = 256>
// TPL-NEXT: void scan_rows_gpu(
// TPL-NEXT: const int blockSize = BLOCK_SIZE;
// TPL-NEXT: void (*kernel[2])(const float *, float *, int) = {scan_rows<blockSize, 1>,
// TPL: written[which]<<<(n + 127) / 128, 128, 0, s>>>(out, n);
// TPL: mixed[0]<<<(n + 63) / 64, 64, 0, s>>>(out, n);

// PTX: ptx-identical: 8 function(s) identical
