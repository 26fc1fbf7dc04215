// cudaLaunchKernelEx with the geometry in a cudaLaunchConfig_t (FlashInfer's
// norm launchers): grid, block and dynamic shared memory are read from the
// config's fields, its attributes are left as they are. The kernel is named
// through `auto kernel = K<VEC, T>` inside a dispatch macro, and
// cudaFuncSetAttribute takes it too. The block is a warp count,
// dim3(32, ceil_div(block_size, 32)): the 32 is the warp's width, the cap
// in std::min<uint32_t>(1024, ...) is the knob, a launch parameter. The
// dispatched VEC is data-dependent, no knob, and the runtime vec it stands
// for reads as the kernel's VEC in the geometry.
// REQUIRES: clang, cuda-headers
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %inputs/refactor/summarize.py < %t/out.json | FileCheck %s --check-prefix=MANIFEST

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <numeric>

#define DISPATCH_VEC(vec, VEC, ...)                                            \
  switch (vec) {                                                               \
  case 4: {                                                                    \
    constexpr uint32_t VEC = 4;                                                \
    __VA_ARGS__                                                                \
    break;                                                                     \
  }                                                                            \
  case 2: {                                                                    \
    constexpr uint32_t VEC = 2;                                                \
    __VA_ARGS__                                                                \
    break;                                                                     \
  }                                                                            \
  default: {                                                                   \
    constexpr uint32_t VEC = 1;                                                \
    __VA_ARGS__                                                                \
  }                                                                            \
  }

__host__ __device__ constexpr uint32_t ceil_div(uint32_t a, uint32_t b) {
  return (a + b - 1) / b;
}

template <uint32_t VEC, typename T>
__global__ void scale_rows(T *x, const T *w, uint32_t d) {
  extern __shared__ float partial[];
  const uint32_t warps = blockDim.y;
  const uint32_t tid = threadIdx.y * 32 + threadIdx.x;
  for (uint32_t i = tid * VEC; i < d; i += warps * 32 * VEC)
    for (uint32_t k = 0; k < VEC && i + k < d; ++k)
      x[blockIdx.x * d + i + k] *= w[i + k];
  partial[threadIdx.y] = 1.0f;
}

template <typename T>
cudaError_t scale_rows_launch(T *x, const T *w, uint32_t rows, uint32_t d,
                              bool pdl, cudaStream_t stream) {
  const uint32_t vec = std::gcd(16 / sizeof(T), d);
  const uint32_t block_size = std::min<uint32_t>(1024, d / vec);
  const uint32_t num_warps = ceil_div(block_size, 32);
  dim3 nblks(rows);
  dim3 nthrs(32, num_warps);
  const uint32_t smem = num_warps * sizeof(float);
  cudaLaunchConfig_t config;
  config.gridDim = nblks;
  config.blockDim = nthrs;
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  cudaLaunchAttribute attrs[1];
  attrs[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attrs[0].val.programmaticStreamSerializationAllowed = pdl;
  config.numAttrs = 1;
  config.attrs = attrs;
  DISPATCH_VEC(vec, VEC, {
    auto kernel = scale_rows<VEC, T>;
    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                         smem);
    cudaLaunchKernelEx(&config, kernel, x, w, d);
  });
  return cudaGetLastError();
}

// A field set twice: the launch's geometry is not read, nothing in it is a
// site.
void scale_rows_either(float *x, const float *w, uint32_t d, bool wide) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(1);
  config.blockDim = dim3(128);
  if (wide)
    config.blockDim = dim3(512);
  cudaLaunchKernelEx(&config, scale_rows<1, float>, x, w, d);
}

template cudaError_t scale_rows_launch<float>(float *, const float *, uint32_t,
                                              uint32_t, bool, cudaStream_t);

// CAND:      CAND block_size scale_rows value=1024 spelling=1024 high launch-param
// CAND-NEXT:   SITE 61:50 launch_block '1024' -> {P}
// CAND-NEXT:   IMPLIES {block_size#0} <= 1024
// CAND-NOT:  CAND

// TPL:      template <uint32_t VEC, typename T>
// TPL-NEXT: __global__ void scale_rows(T *x, const T *w, uint32_t d) {
// TPL:      template <typename T, int BLOCK_SIZE = 1024>
// TPL-NEXT: cudaError_t scale_rows_launch(T *x, const T *w, uint32_t rows, uint32_t d,
// TPL:        const uint32_t block_size = std::min<uint32_t>(BLOCK_SIZE, d / vec);
// TPL-NEXT:   const uint32_t num_warps = ceil_div(block_size, 32);
// TPL-NEXT:   dim3 nblks(rows);
// TPL-NEXT:   dim3 nthrs(32, num_warps);
// TPL:          auto kernel = scale_rows<VEC, T>;
// TPL:        config.blockDim = dim3(128);

// MANIFEST:      KERNEL scale_rows
// MANIFEST-NEXT:   PARAM VEC uint32_t
// MANIFEST-NEXT:   PARAM T typename
// MANIFEST-NEXT:   LAUNCH-PARAM BLOCK_SIZE int block_size default=1024 launcher=scale_rows_launch
// MANIFEST:        ARG uint32_t d canonical=unsigned int
// MANIFEST-NEXT:   CONSTRAINT BLOCK_SIZE <= 1024
// MANIFEST-NEXT:   LAUNCH grid=['rows'] block=['32', 'ceil_div(min(BLOCK_SIZE, d / VEC), 32)'] smem=ceil_div(min(BLOCK_SIZE, d / VEC), 32) * 4 from={{.*}}launch-kernel-ex.cu:77
// MANIFEST:      LAUNCHER scale_rows_launch returns=cudaError_t kernels=['scale_rows']{{$}}
// MANIFEST-NEXT:   PARAM T typename
// MANIFEST-NEXT:   PARAM BLOCK_SIZE int tunable block_size default=1024
