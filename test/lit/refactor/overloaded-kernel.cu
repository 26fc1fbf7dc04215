// Overloads of one kernel template, picked by enable_if on a width (vLLM's
// fused_add_rms_norm_kernel): candidates and the built-in plan name each
// overload as name@line, which the plan validator accepts; the width the
// launches pick the overload with is a dispatch. The result compiles.
// REQUIRES: clang, cuda-headers
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s --emit-plan %t/plan.json
// RUN: FileCheck %s --check-prefix=PLAN < %t/plan.json
// RUN: ktune-refactor %s --plan %t/plan.json -o %t/out.cu
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: sed 's/"add_sum@[0-9]*"/"add_sum"/' %t/plan.json > %t/ambiguous.json
// RUN: not ktune-refactor %s --plan %t/ambiguous.json -o %t/bad.cu 2>&1 | FileCheck %s --check-prefix=AMBIGUOUS

#include <cub/cub.cuh>
#include <type_traits>

template <typename T, int width>
__global__ std::enable_if_t<(width > 0)> add_sum(T *x, int n) {
  using Reduce = cub::BlockReduce<float, 512>;
  __shared__ typename Reduce::TempStorage tmp;
  float v = 0.f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    v += x[blockIdx.x * n + i];
  v = Reduce(tmp).Sum(v, blockDim.x);
  if (threadIdx.x == 0)
    x[blockIdx.x * n] = v;
}

template <typename T, int width>
__global__ std::enable_if_t<(width == 0)> add_sum(T *x, int n) {
  using Reduce = cub::BlockReduce<float, 512>;
  __shared__ typename Reduce::TempStorage tmp;
  float v = 0.f;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    v += x[blockIdx.x * n + i];
  v = Reduce(tmp).Sum(v, blockDim.x);
  if (threadIdx.x == 0)
    x[blockIdx.x * n] = 2.f * v;
}

void run(float *x, int rows, int cols, cudaStream_t s) {
  if (cols % 4 == 0)
    add_sum<float, 4><<<rows, 512, 0, s>>>(x, cols);
  else
    add_sum<float, 0><<<rows, 512, 0, s>>>(x, cols);
}

// CAND:      CAND block_size add_sum@20 value=512 spelling=512 high
// CAND:      CAND block_size add_sum@32 value=512 spelling=512 high
// CAND-NOT:  template_arg
// CAND-NOT:  vector_width

// PLAN:      "kernel": "add_sum@{{20|32}}"

// TPL:       add_sum<float, 4{{.*}}><<<rows,
// TPL:       add_sum<float, 0{{.*}}><<<rows,

// AMBIGUOUS: unknown kernel 'add_sum'; the candidates name: add_sum@20, add_sum@32
