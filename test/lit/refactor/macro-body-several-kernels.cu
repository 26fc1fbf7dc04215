// A dispatch macro whose body defines the block size (FlashInfer's
// DISPATCH_COMPUTE_CAP_NUM_THREADS), expanded by launchers of different
// kernels: one edit of the macro serves a parameter of each kernel, so the
// plan lifts them together and under one name, and every launcher becomes a
// template with it. Only the first case of the dispatch is followed (the
// value Ampere and later run); the other keeps its constant. A plan lifting
// the site for some of the kernels, or under different names, is refused.
// The macro is defined in the file's leading directives: a cached preamble
// holds it, and must give the same result as none.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --no-cache --candidates 2>/dev/null > %t/cands.json
// RUN: %python %inputs/refactor/summarize.py < %t/cands.json | FileCheck %s --check-prefix=CAND
// RUN: ktune-refactor %s --no-cache -o %t/out.cu
// RUN: grep -v -e '^// [A-Z-]*:' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %inputs/refactor/summarize.py < %t/out.json | FileCheck %s --check-prefix=MANIFEST
//
// With a cached preamble (built, then reused): the same output.
// RUN: ktune-refactor %s --cache-dir %t/cache --preamble-build=foreground -o %t/built.cu
// RUN: ktune-refactor %s --cache-dir %t/cache --preamble-build=never --timings -o %t/reused.cu 2>&1 | FileCheck %s --check-prefix=REUSED
// RUN: cmp %t/out.cu %t/built.cu
// RUN: cmp %t/out.cu %t/reused.cu
//
// Plans that lift the shared site for one kernel only, or under two names.
// RUN: ktune-plan %t/cands.json > %t/plan.json
// RUN: %python -c "import json,sys; p=json.load(open(sys.argv[1])); p['kernels']=[k for k in p['kernels'] if k['kernel']=='scale']; json.dump(p,open(sys.argv[2],'w'))" %t/plan.json %t/one.json
// RUN: not ktune-refactor %s --no-cache --plan %t/one.json -o %t/one.cu 2>&1 | FileCheck %s --check-prefix=ONE
// RUN: %python -c "import json,sys; p=json.load(open(sys.argv[1])); k=[k for k in p['kernels'] if k['kernel']=='shift'][0]; k['params'][0]['name']='OTHER'; k['constraints']=[]; json.dump(p,open(sys.argv[2],'w'))" %t/plan.json %t/two.json
// RUN: not ktune-refactor %s --no-cache --plan %t/two.json -o %t/two.cu 2>&1 | FileCheck %s --check-prefix=TWO

#include <cstdint>
#include <utility>
#define DISPATCH_CC_THREADS(cc, BLOCK_THREADS, ...) \
  if (cc.first >= 8) {                              \
    constexpr uint32_t BLOCK_THREADS = 1024;        \
    __VA_ARGS__                                     \
  } else {                                          \
    constexpr uint32_t BLOCK_THREADS = 512;         \
    __VA_ARGS__                                     \
  }

template <uint32_t BLOCK_THREADS, typename T>
__global__ void scale(T *x, int n) {
  for (int i = threadIdx.x; i < n; i += BLOCK_THREADS)
    x[i + blockIdx.x * n] *= 2;
}

template <uint32_t BLOCK_THREADS, typename T>
__global__ void shift(T *x, int n) {
  for (int i = threadIdx.x; i < n; i += BLOCK_THREADS)
    x[i + blockIdx.x * n] += 1;
}

template <typename T>
cudaError_t Scale(T *x, int rows, int n, std::pair<int, int> cc,
                  cudaStream_t stream) {
  DISPATCH_CC_THREADS(cc, BLOCK_THREADS, {
    dim3 nblks(rows);
    dim3 nthrs(BLOCK_THREADS);
    void *args[] = {&x, &n};
    auto kernel = scale<BLOCK_THREADS, T>;
    return cudaLaunchKernel((void *)kernel, nblks, nthrs, args, 0, stream);
  });
}

template <typename T>
cudaError_t Shift(T *x, int rows, int n, std::pair<int, int> cc,
                  cudaStream_t stream) {
  DISPATCH_CC_THREADS(cc, BLOCK_THREADS, {
    shift<BLOCK_THREADS, T><<<rows, BLOCK_THREADS, 0, stream>>>(x, n);
  });
  return cudaGetLastError();
}

template cudaError_t Scale<float>(float *, int, int, std::pair<int, int>,
                                  cudaStream_t);
template cudaError_t Shift<float>(float *, int, int, std::pair<int, int>,
                                  cudaStream_t);

// CAND:      CAND block_size scale value=1024 spelling=BLOCK_THREADS high type=uint32_t
// CAND-NEXT:   SITE 35:40 definition '1024' -> {P} shared
// CAND:      CAND block_size shift value=1024 spelling=BLOCK_THREADS high type=uint32_t
// CAND-NEXT:   SITE 35:40 definition '1024' -> {P} shared
// CAND-NOT:  '512'

// TPL:      constexpr uint32_t BLOCK_THREADS = BLOCK_SIZE;
// TPL:      constexpr uint32_t BLOCK_THREADS = 512;
// TPL:      template <typename T, uint32_t BLOCK_SIZE = 1024>
// TPL-NEXT: cudaError_t Scale(T *x, int rows, int n, std::pair<int, int> cc,
// TPL:      template <typename T, uint32_t BLOCK_SIZE = 1024>
// TPL-NEXT: cudaError_t Shift(T *x, int rows, int n, std::pair<int, int> cc,

// MANIFEST: KERNEL scale
// MANIFEST: KERNEL shift
// MANIFEST: LAUNCHER Scale {{.*}}kernels=['scale']
// MANIFEST:   PARAM BLOCK_SIZE uint32_t tunable block_size default=1024
// MANIFEST: LAUNCHER Shift {{.*}}kernels=['shift']
// MANIFEST:   PARAM BLOCK_SIZE uint32_t tunable block_size default=1024

// REUSED: (cached preamble)

// ONE: error: {{.*}}kernels[0].params[0].candidates[0] ({{.*}}macro-body-several-kernels.cu:35:40): the site is in the body of a macro that launchers of several kernels expand: one edit serves them all, so lift candidate 'c_bs_{{[0-9a-f]+}}' of kernel 'shift' too, under the name 'BLOCK_SIZE'
// TWO: error: {{.*}}kernels[1].params[0].candidates[0] ({{.*}}macro-body-several-kernels.cu:35:40): this edit is also made by kernels[0].params[0].candidates[0] ({{.*}}macro-body-several-kernels.cu:35:40) for BLOCK_SIZE; one edit serves both, so give the parameters one name
