// A launch written in a launch macro's body and handed, inside a lambda, to
// a dispatch macro (vLLM's LAUNCH_FUSED_ADD_RMS_NORM over
// VLLM_DISPATCH_FLOATING_TYPES): the kernel's name reaches the code through
// the dispatch macro's argument, but it is spelled in the launch macro's
// body, where no template argument can be added. The kernel's own constant
// is lifted; its launcher keeps the default configuration, with a note, and
// the macro's call sites are left as they are.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: FileCheck %s --check-prefix=NOTE < %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL

#define DISPATCH_FLOAT(...) [&] { using scalar_t = float; return __VA_ARGS__(); }()

template <typename scalar_t, int width>
__global__ void add_kernel(scalar_t *x, int n) {
  __shared__ scalar_t partial[256];
  partial[threadIdx.x] = x[threadIdx.x] * width;
  __syncthreads();
  if (threadIdx.x < n)
    x[threadIdx.x] = partial[255 - threadIdx.x];
}

#define LAUNCH_ADD(width)                                                      \
  DISPATCH_FLOAT([&] { add_kernel<scalar_t, width><<<1, block>>>(x, n); });

void add(float *x, int n) {
  dim3 block(256);
  if (n % 8 == 0) {
    LAUNCH_ADD(8);
  } else {
    LAUNCH_ADD(0);
  }
}

// NOTE: launch-macro-nested.cu:{{[0-9]+}}: the launch of add_kernel in add keeps the default configuration: it is spelled in the body of macro LAUNCH_ADD, where template arguments cannot be added
// TPL:      template <typename scalar_t, int width, int BLOCK_SIZE = 256>
// TPL:      void add(float *x, int n) {
// TPL-NEXT:   dim3 block(256);
// TPL-NEXT:   if (n % 8 == 0) {
// TPL-NEXT:     LAUNCH_ADD(8);
// TPL-NEXT:   } else {
// TPL-NEXT:     LAUNCH_ADD(0);
