// A kernel that cannot become a template (vLLM's enable_if overloads) and
// sizes its block reduction for 1024 threads, the most a block has, takes
// any block: the host's block sizes (`tokens < 256 ? 1024 : 256`) are the
// launch's own knobs, the kernel is unchanged. A capacity below 1024 ties
// the host's equal constant to the kernel: that launch keeps its value.
// REQUIRES: clang, cuda-headers
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL

#include <algorithm>
#include <cub/block/block_reduce.cuh>
#include <type_traits>

struct AddOp {
  __device__ float operator()(float a, float b) const { return a + b; }
};

template <typename T, int width>
__global__ std::enable_if_t<(width > 0)> add_norm(T *x, int n) {
  using BlockReduce = cub::BlockReduce<float, 1024>;
  __shared__ typename BlockReduce::TempStorage store;
  float v = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    v += x[blockIdx.x * n + i] * width;
  v = BlockReduce(store).Reduce(v, AddOp{}, blockDim.x);
  if (threadIdx.x == 0)
    x[blockIdx.x * n] = v;
}

template <typename T, int width>
__global__ std::enable_if_t<(width == 0)> add_norm(T *x, int n) {
  using BlockReduce = cub::BlockReduce<float, 1024>;
  __shared__ typename BlockReduce::TempStorage store;
  float v = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    v += x[blockIdx.x * n + i];
  v = BlockReduce(store).Reduce(v, AddOp{}, blockDim.x);
  if (threadIdx.x == 0)
    x[blockIdx.x * n] = v;
}

template <typename T, int width>
__global__ std::enable_if_t<(width > 0)> small_norm(T *x, int n) {
  using BlockReduce = cub::BlockReduce<float, 256>;
  __shared__ typename BlockReduce::TempStorage store;
  float v = x[blockIdx.x * n + threadIdx.x] * width;
  v = BlockReduce(store).Reduce(v, AddOp{}, blockDim.x);
  if (threadIdx.x == 0)
    x[blockIdx.x * n] = v;
}

template <typename T, int width>
__global__ std::enable_if_t<(width == 0)> small_norm(T *x, int n) {
  using BlockReduce = cub::BlockReduce<float, 256>;
  __shared__ typename BlockReduce::TempStorage store;
  float v = x[blockIdx.x * n + threadIdx.x];
  v = BlockReduce(store).Reduce(v, AddOp{}, blockDim.x);
  if (threadIdx.x == 0)
    x[blockIdx.x * n] = v;
}

void fused_add_norm(float *x, int n, int tokens) {
  const int max_block_size = tokens < 256 ? 1024 : 256;
  dim3 block(std::min(n, max_block_size));
  if (n % 8 == 0)
    add_norm<float, 8><<<tokens, block>>>(x, n);
  else
    add_norm<float, 0><<<tokens, block>>>(x, n);
}

void small(float *x, int n, int tokens) {
  if (n % 8 == 0)
    small_norm<float, 8><<<tokens, 256>>>(x, n);
  else
    small_norm<float, 0><<<tokens, 256>>>(x, n);
}

// CAND:     CAND block_size add_norm@22 value=1024 spelling=1024 high launch-param
// CAND-NEXT:  SITE 66:45 launch_block '1024' -> {P}
// CAND:     CAND block_size add_norm@22 value=256 spelling=256 high launch-param
// CAND-NEXT:  SITE 66:52 launch_block '256' -> {P}
// CAND-NOT: small_norm
// TPL: const int max_block_size = tokens < 256 ? BLOCK_SIZE : BLOCK_SIZE_2;
// TPL: small_norm<float, 8><<<tokens, 256>>>(x, n);
