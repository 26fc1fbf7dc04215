// A kernel that is named other than as a launch's callee (its address given
// to cudaLaunchCooperativeKernel, or the kernel handed to a launch helper as
// llama.cpp does) stays a plain function: as a template its name would not
// name one function and the result would not compile. A note says why; a
// kernel only launched with <<<>>> beside it is still lifted.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: FileCheck %s --check-prefix=NOTE < %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL

#define THREADS 256

__device__ void twice(float *x) {
  const int per_thread = 4;
  float v[per_thread];
#pragma unroll
  for (int i = 0; i < per_thread; ++i)
    v[i] = x[threadIdx.x * per_thread + i];
#pragma unroll
  for (int i = 0; i < per_thread; ++i)
    x[threadIdx.x * per_thread + i] = 2.0f * v[i];
}

__global__ void coop_kernel(float *x) { twice(x); }

static __global__ void __launch_bounds__(THREADS, 1) helper_kernel(float *x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= 2.0f;
}

__global__ void plain_kernel(float *x) {
  __shared__ float tile[128];
  tile[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  x[threadIdx.x] = tile[127 - threadIdx.x];
}

template <typename Kernel, typename... Args>
static void launch_with(Kernel kernel, dim3 grid, dim3 block, cudaStream_t s, Args... args) {
  kernel<<<grid, block, 0, s>>>(args...);
}

void run(float *x, int n, cudaStream_t s) {
  void *args[] = {(void *)&x};
  cudaLaunchCooperativeKernel((void *)coop_kernel, dim3(1), dim3(THREADS), args, 0, s);
  launch_with(helper_kernel, dim3((n + THREADS - 1) / THREADS), dim3(THREADS), s, x, n);
  plain_kernel<<<1, 128, 0, s>>>(x);
}

// CAND-NOT:  coop_kernel
// CAND-NOT:  helper_kernel
// CAND:      CAND {{.*}} plain_kernel value=128
// CAND-NOT:  coop_kernel
// CAND-NOT:  helper_kernel

// NOTE-DAG:  kernel coop_kernel cannot become a template (it is named on line 49 other than in a launch, where a template's name would not name one function): nothing in it is lifted
// NOTE-DAG:  kernel helper_kernel cannot become a template (it is named on line 50 other than in a launch

// TPL:       __global__ void coop_kernel(float *x) { twice(x); }
// TPL:       static __global__ void __launch_bounds__(THREADS, 1) helper_kernel(float *x, int n) {
// TPL:       template <int [[P:[A-Z_]+]] = 128>
// TPL-NEXT:  __global__ void plain_kernel(float *x) {
// TPL:       cudaLaunchCooperativeKernel((void *)coop_kernel, dim3(1), dim3(THREADS), args, 0, s);
// TPL-NEXT:  launch_with(helper_kernel,
// TPL-NEXT:  plain_kernel<[[P]]><<<1, [[P]], 0, s>>>(x);
