// A block chosen between two sizes (vLLM's `num_tokens < 256 ? 1024 : 256`)
// gives two block sizes, each a launch parameter; the threshold in the
// condition is no site. A kernel that cannot become a template (an
// overload of an enable_if pair) keeps its code, constants included: a
// host-side size its code also spells (1024, its shared array) is kept;
// one it does not (256) is lifted, once for the overloads one launch
// selects.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates 2> /dev/null | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> /dev/null
// RUN: grep -v -e '^// [A-Z-]*:' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL

#include <algorithm>
#include <type_traits>

template <typename T, int width>
__global__ std::enable_if_t<(width > 0)> add_norm(T *x, const T *r, int n) {
  __shared__ float partial[1024];
  for (int i = threadIdx.x * width; i < n; i += blockDim.x * width)
    x[blockIdx.x * n + i] += r[blockIdx.x * n + i];
  partial[threadIdx.x] = 0.0f;
}

template <typename T, int width>
__global__ std::enable_if_t<(width == 0)> add_norm(T *x, const T *r, int n) {
  __shared__ float partial[1024];
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    x[blockIdx.x * n + i] += r[blockIdx.x * n + i];
  partial[threadIdx.x] = 0.0f;
}

void add_norm_f32(float *x, const float *r, int n, int num_tokens) {
  dim3 grid(num_tokens);
  const int max_block_size = (num_tokens < 256) ? 1024 : 256;
  dim3 block(std::min(n, max_block_size));
  if (n % 8 == 0)
    add_norm<float, 8><<<grid, block>>>(x, r, n);
  else
    add_norm<float, 0><<<grid, block>>>(x, r, n);
}

// CAND-NOT:  value=1024
// CAND:      CAND block_size add_norm@19 value=256 spelling=256 high launch-param
// CAND-NEXT:   SITE 36:58 launch_block '256' -> {P}
// CAND-NOT:  add_norm@26
// CAND-NOT:  shared_extent

// TPL:      __shared__ float partial[1024];
// TPL:      __shared__ float partial[1024];
// TPL:      template <int BLOCK_SIZE = 256>
// TPL-NEXT: void add_norm_f32(float *x, const float *r, int n, int num_tokens) {
// TPL:        const int max_block_size = (num_tokens < 256) ? 1024 : BLOCK_SIZE;
// TPL:        add_norm<float, 8><<<grid, block>>>(x, r, n);
// TPL:        add_norm<float, 0><<<grid, block>>>(x, r, n);
// TPL:      void add_norm_f32(float *x, const float *r, int n, int num_tokens) {
// TPL-NEXT:   return add_norm_f32<256>(x, r, n, num_tokens);
