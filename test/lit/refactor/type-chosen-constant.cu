// A local constant whose value is chosen by its type (DeepSpeed's
// `constexpr int internal_unRoll = sizeof(T) == 4 ? 4 : 2;`): each branch's
// literal is a parameter of its own and the condition stays, so each
// instantiation keeps its value at the defaults. A block chosen at run time
// stays what it was: block alternatives, each a launch parameter.
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates 2>/dev/null | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX

template <typename T, int unRoll, int threads>
__global__ void norm(T *out, const T *in, int n) {
  int base = blockIdx.x * threads * unRoll + threadIdx.x;
#pragma unroll
  for (int i = 0; i < unRoll; i++)
    if (base + i * threads < n)
      out[base + i * threads] = in[base + i * threads] * T(2);
}

#define LAUNCH_NORM(factor, threads) \
  norm<T, factor, threads><<<grid, threads, 0, stream>>>(out, in, n);

template <typename T>
void launch_norm(T *out, const T *in, int n, cudaStream_t stream) {
  constexpr int maxThreads = 256;
  constexpr int internalUnroll = sizeof(T) == 4 ? 4 : 2;
  const int per_block = maxThreads * internalUnroll;
  const int grid = (n + per_block - 1) / per_block;
  if (n < 4096)
    LAUNCH_NORM(1 * internalUnroll, maxThreads)
  else
    LAUNCH_NORM(2 * internalUnroll, maxThreads)
}
template void launch_norm<float>(float *, const float *, int, cudaStream_t);
template void launch_norm<double>(double *, const double *, int, cudaStream_t);

__global__ void copy(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}

void launch_copy(float *out, const float *in, int n) {
  const int threads = n > 4096 ? 512 : 128;
  copy<<<(n + threads - 1) / threads, threads>>>(out, in, n);
}

// CAND:      CAND unroll norm value=4 spelling=internalUnroll high
// CAND-NEXT:   SITE 29:51 definition '4' -> {P}
// CAND:      CAND unroll norm value=2 spelling=internalUnroll high
// CAND-NEXT:   SITE 29:55 definition '2' -> {P}
// CAND:      CAND block_size copy value=512 spelling=512 high launch-param
// CAND:      CAND block_size copy value=128 spelling=128 high launch-param
// TPL:      template <typename T, int BLOCK_SIZE = 256, int UNROLL = 4, int UNROLL_2 = 2>
// TPL-NEXT: void launch_norm(T *out, const T *in, int n, cudaStream_t stream) {
// TPL:        constexpr int internalUnroll = sizeof(T) == 4 ? UNROLL : UNROLL_2;
// TPL:        const int threads = n > 4096 ? BLOCK_SIZE : BLOCK_SIZE_2;
// PTX: ptx-identical: 5 function(s) identical
