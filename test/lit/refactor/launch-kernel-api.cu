// cudaLaunchKernel and cudaLaunchCooperativeKernel: the kernel named through
// a cast, grid and block as arguments, the kernel's arguments in a
// `void *args[]` array (their addresses, which the launch only copies).
// Both launches are read like <<<>>>: the block sizes the kernels read from
// blockDim are launch parameters; the cooperative one says so in the
// manifest. Two launchers of one kernel each hold their own launch
// parameter.
// REQUIRES: clang, cuda-headers
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %inputs/refactor/summarize.py < %t/out.json | FileCheck %s --check-prefix=MANIFEST

#include <cuda_runtime.h>

__global__ void reduce_all(const float *in, float *out, int n) {
  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x)
    sum += in[i];
  atomicAdd(out, sum);
}

__global__ void fill(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = 0.0f;
}

void sum(const float *in, float *out, int n, cudaStream_t s) {
  void *args[] = {(void *)&in, (void *)&out, (void *)&n};
  cudaLaunchCooperativeKernel((void *)reduce_all, dim3((n + 511) / 512),
                              dim3(512), args, 0, s);
}

void fill_all(float *x, int n, cudaStream_t s) {
  void *args[] = {&x, &n};
  cudaLaunchKernel((const void *)fill, dim3((n + 127) / 128), dim3(128), args,
                   0, s);
}

void fill_given(void **args, int n, cudaStream_t s) {
  cudaLaunchKernel((const void *)fill, dim3((n + 63) / 64), dim3(64), args, 0,
                   s);
}

// CAND:      CAND block_size reduce_all value=512 spelling=512 high launch-param
// CAND-NEXT:   SITE 34:61 launch_grid '511' -> {P} - 1
// CAND-NEXT:   SITE 34:68 launch_grid '512' -> {P}
// CAND-NEXT:   SITE 35:36 launch_block '512' -> {P}
// CAND:      CAND block_size fill value=128 spelling=128 high launch-param
// CAND-NEXT:   SITE 40:50 launch_grid '127' -> {P} - 1
// CAND-NEXT:   SITE 40:57 launch_grid '128' -> {P}
// CAND-NEXT:   SITE 40:68 launch_block '128' -> {P}
// CAND:      CAND block_size fill value=64 spelling=64 high launch-param

// TPL:      __global__ void reduce_all(const float *in, float *out, int n) {
// TPL:      __global__ void fill(float *x, int n) {
// TPL:      template <int BLOCK_SIZE = 512>
// TPL-NEXT: void sum(const float *in, float *out, int n, cudaStream_t s) {
// TPL:        cudaLaunchCooperativeKernel((void *)reduce_all, dim3((n + (BLOCK_SIZE - 1)) / BLOCK_SIZE),
// TPL-NEXT:                               dim3(BLOCK_SIZE), args, 0, s);
// TPL:      template <int BLOCK_SIZE = 128>
// TPL-NEXT: void fill_all(float *x, int n, cudaStream_t s) {
// TPL:        cudaLaunchKernel((const void *)fill, dim3((n + (BLOCK_SIZE - 1)) / BLOCK_SIZE), dim3(BLOCK_SIZE), args,
// TPL:      template <int BLOCK_SIZE_2 = 64>
// TPL-NEXT: void fill_given(void **args, int n, cudaStream_t s) {

// MANIFEST:      KERNEL reduce_all
// MANIFEST-NEXT:   LAUNCH-PARAM BLOCK_SIZE int block_size default=512 launcher=sum
// MANIFEST:        LAUNCH grid=['(n + (BLOCK_SIZE - 1)) / BLOCK_SIZE'] block=['BLOCK_SIZE'] smem=0 from={{.*}}launch-kernel-api.cu:34 cooperative
// MANIFEST:      KERNEL fill
// MANIFEST-NEXT:   LAUNCH-PARAM BLOCK_SIZE int block_size default=128 launcher=fill_all
// MANIFEST-NEXT:   LAUNCH-PARAM BLOCK_SIZE_2 int block_size default=64 launcher=fill_given
// MANIFEST:        CONSTRAINT BLOCK_SIZE <= 1024
// MANIFEST-NEXT:   CONSTRAINT BLOCK_SIZE_2 <= 1024
// MANIFEST-NEXT:   LAUNCH grid=['(n + (BLOCK_SIZE - 1)) / BLOCK_SIZE'] block=['BLOCK_SIZE'] smem=0 from={{.*}}launch-kernel-api.cu:40{{$}}
// MANIFEST:      LAUNCHER sum returns=void kernels=['reduce_all'] forwarder
// MANIFEST:      LAUNCHER fill_all returns=void kernels=['fill'] forwarder
// MANIFEST:      LAUNCHER fill_given returns=void kernels=['fill'] forwarder
