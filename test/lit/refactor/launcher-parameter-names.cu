// Launcher templates called from one entry point, each for its own kernel,
// with the block sizes as the calls' template arguments (`argMax<32>`,
// `gather<256>`): a parameter a launcher passes up (the gather kernel's 8 rows,
// also named BLOCK_SIZE) whose name the caller already has for another
// knob takes a fresh name there, and the call passes it. Before, the
// caller passed its own parameter of that name: the default instantiation
// launched the gather kernel with 32 rows per block.
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py | FileCheck %s --check-prefix=CAND
// RUN: ktune-refactor %s -o %t/out.cu
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX

#include <cuda_runtime.h>

template <int Threads>
__global__ void argmax_kernel(const float *in, int *out, int n) {
  __shared__ float s[Threads];
  s[threadIdx.x] = in[blockIdx.x * n + threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0)
    out[blockIdx.x] = (int)s[Threads - 1];
}
template <int Threads>
cudaError_t argMax(cudaStream_t st, const float *in, int *out, int n, int rows) {
  argmax_kernel<Threads><<<rows, Threads, 0, st>>>(in, out, n);
  return cudaGetLastError();
}

#define MaxItemsPerThreads 4
#define BLOCK_ROWS 8
template <typename T, int Threads = 256>
__global__ void gather_kernel(const T *in, T *out, int n) {
  __shared__ T rows[BLOCK_ROWS][Threads];
  T v[MaxItemsPerThreads];
  for (int r = 0; r < BLOCK_ROWS; ++r)
    rows[r][threadIdx.x] = in[(blockIdx.x * BLOCK_ROWS + r) * Threads + threadIdx.x];
  __syncthreads();
  for (int i = 0; i < MaxItemsPerThreads; ++i)
    v[i] = rows[(threadIdx.x + i) % BLOCK_ROWS][threadIdx.x];
  for (int i = 0; i < MaxItemsPerThreads; ++i)
    out[(blockIdx.x * MaxItemsPerThreads + i) * Threads + threadIdx.x] = v[i] * 2;
}
template <int Threads>
cudaError_t gather(cudaStream_t st, const float *in, float *out, int blocks) {
  gather_kernel<float, Threads><<<blocks, Threads, 0, st>>>(in, out, blocks);
  return cudaGetLastError();
}

cudaError_t post(cudaStream_t st, const float *in, int *idx, float *out, int n, int rows) {
  cudaError_t e = argMax<32>(st, in, idx, n, rows);
  if (e)
    return e;
  return gather<256>(st, in, out, rows);
}

// Two kernels whose block sizes are both BLOCK_SIZE in the plan, with
// different defaults, set by one function's launcher calls.
template <typename T, int Threads = 128>
__global__ void copy_kernel(const T *in, T *out, int n) {
  int i = blockIdx.x * Threads + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}
template <int Threads>
cudaError_t copy(cudaStream_t st, const float *in, float *out, int n) {
  copy_kernel<float, Threads><<<(n + Threads - 1) / Threads, Threads, 0, st>>>(in, out, n);
  return cudaGetLastError();
}
cudaError_t reduce_then_copy(cudaStream_t st, const float *in, int *idx, float *out, int n, int rows) {
  cudaError_t e = argMax<64>(st, in, idx, n, rows);
  if (e)
    return e;
  return copy<512>(st, in, out, n);
}

// The items per thread are named as such, though the name ends in "threads".
// CAND: CAND items_per_thread gather_kernel value=4 spelling=MaxItemsPerThreads

// TPL: template <int Threads, int BLOCK_SIZE = 8, int ITEMS_PER_THREAD = 4>
// TPL-NEXT: cudaError_t gather(
// TPL: gather_kernel<float, Threads, BLOCK_SIZE, ITEMS_PER_THREAD><<<blocks, Threads, 0, st>>>
// TPL: template <int BLOCK_SIZE = 32, int GATHER_KERNEL_BLOCK_SIZE_2 = 256, int BLOCK_SIZE_2 = 8, int ITEMS_PER_THREAD = 4>
// TPL-NEXT: cudaError_t post(
// TPL: argMax<BLOCK_SIZE>(st, in, idx, n, rows);
// TPL: return gather<GATHER_KERNEL_BLOCK_SIZE_2, BLOCK_SIZE_2, ITEMS_PER_THREAD>(st, in, out, rows);
// TPL: return post<32, 256, 8, 4>(
// TPL: template <int BLOCK_SIZE_2 = 64, int COPY_KERNEL_BLOCK_SIZE = 512>
// TPL-NEXT: cudaError_t reduce_then_copy(
// TPL: argMax<BLOCK_SIZE_2>(st, in, idx, n, rows);
// TPL: return copy<COPY_KERNEL_BLOCK_SIZE>(st, in, out, n);
// TPL: return reduce_then_copy<64, 512>(

// PTX: ptx-identical: {{[0-9]+}} function(s) identical
