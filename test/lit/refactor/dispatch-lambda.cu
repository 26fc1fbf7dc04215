// The launch pattern of LLM-serving kernels: a type-dispatch macro whose
// lambda launches the kernel, capturing dim3 locals by reference. The host
// function becomes the template; the lambda sees its parameter.
// REQUIRES: clang, cuda-headers
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py | FileCheck %s --check-prefix=CAND
// RUN: ktune-refactor %s -o %t/out.cu
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %inputs/refactor/summarize.py < %t/out.json | FileCheck %s --check-prefix=MANIFEST

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#define DISPATCH_FLOATING_TYPES(TYPE, NAME, ...)                               \
  switch (TYPE) {                                                              \
  case 0: {                                                                    \
    using scalar_t = float;                                                    \
    __VA_ARGS__();                                                             \
    break;                                                                     \
  }                                                                            \
  case 1: {                                                                    \
    using scalar_t = __half;                                                   \
    __VA_ARGS__();                                                             \
    break;                                                                     \
  }                                                                            \
  }

namespace vllm {
template <typename scalar_t>
__global__ void act_kernel(scalar_t *__restrict__ out,
                           const scalar_t *__restrict__ in, const int d) {
  const int64_t token_idx = blockIdx.x;
  for (int64_t idx = threadIdx.x; idx < d; idx += blockDim.x) {
    const float x = (float)in[token_idx * d + idx];
    out[token_idx * d + idx] = (scalar_t)(x > 0.0f ? x : 0.0f);
  }
}
} // namespace vllm

void relu(void *out, const void *in, int type, int num_tokens, int d) {
  dim3 grid(num_tokens);
  dim3 block(std::min(d, 1024));
  DISPATCH_FLOATING_TYPES(type, "relu", [&] {
    vllm::act_kernel<scalar_t><<<grid, block>>>(
        (scalar_t *)out, (const scalar_t *)in, d);
  });
}

// The kernel reads blockDim: the cap is a launch parameter of relu.
// CAND:      CAND block_size vllm::act_kernel value=1024 spelling=1024 high launch-param
// CAND-NEXT:   SITE 42:26 launch_block '1024' -> {P}

// TPL:      template <typename scalar_t>
// TPL-NEXT: __global__ void act_kernel(scalar_t *__restrict__ out,
// TPL:      template <int BLOCK_SIZE = 1024>
// TPL-NEXT: void relu(void *out, const void *in, int type, int num_tokens, int d) {
// TPL-NEXT:   static_assert(BLOCK_SIZE <= 1024, "ktune: BLOCK_SIZE <= 1024");
// TPL-NEXT:   dim3 grid(num_tokens);
// TPL-NEXT:   dim3 block(std::min(d, BLOCK_SIZE));
// TPL-NEXT:   DISPATCH_FLOATING_TYPES(type, "relu", [&] {
// TPL-NEXT:     vllm::act_kernel<scalar_t><<<grid, block>>>(
// TPL:      void relu(void *out, const void *in, int type, int num_tokens, int d) {
// TPL-NEXT:   return relu<1024>(out, in, type, num_tokens, d);

// The grid is num_tokens, a parameter of the launcher: the geometry names it.
// MANIFEST:      KERNEL vllm::act_kernel
// MANIFEST-NEXT:   PARAM scalar_t typename
// MANIFEST-NEXT:   LAUNCH-PARAM BLOCK_SIZE int block_size default=1024 launcher=relu
// MANIFEST-NEXT:   ARG scalar_t *__restrict__ out
// MANIFEST-NEXT:   ARG const scalar_t *__restrict__ in
// MANIFEST-NEXT:   ARG const int d canonical=int
// MANIFEST:        LAUNCH grid=['num_tokens'] block=['min(d, BLOCK_SIZE)'] smem=0
// MANIFEST:      LAUNCHER relu returns=void kernels=['vllm::act_kernel'] forwarder
// MANIFEST-NEXT:   PARAM BLOCK_SIZE int tunable block_size default=1024
