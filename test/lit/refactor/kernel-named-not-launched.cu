// A kernel named other than as a launch's callee becomes a template only
// where every such name can take template arguments: handed to the CUDA
// runtime (cudaLaunchCooperativeKernel((void *)k, ...)) or to a launch
// helper of this file whose launch is read like any other (llama.cpp's
// launch_with(kernel, grid, block, ...)). Named anywhere else (an opaque
// registration function) it stays a plain function, as a template's name
// would not name one function there; a note says why.
// REQUIRES: clang, cuda-headers
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

void register_kernel(const void *fn);

__global__ void opaque_kernel(float *x) {
  __shared__ float t[64];
  t[threadIdx.x] = x[threadIdx.x];
  x[threadIdx.x] = t[63 - threadIdx.x];
}

void setup() { register_kernel((const void *)opaque_kernel); }

void run(float *x, int n, cudaStream_t s) {
  void *args[] = {(void *)&x};
  cudaLaunchCooperativeKernel((void *)coop_kernel, dim3(1), dim3(THREADS), args, 0, s);
  launch_with(helper_kernel, dim3((n + THREADS - 1) / THREADS), dim3(THREADS), s, x, n);
  plain_kernel<<<1, 128, 0, s>>>(x);
  opaque_kernel<<<1, 64, 0, s>>>(x);
}

// CAND:      CAND items_per_thread coop_kernel value=4 spelling=per_thread high
// CAND:      CAND block_size coop_kernel value=256 spelling=THREADS high launch-param
// CAND:      CAND block_size helper_kernel value=256 spelling=THREADS high
// CAND-NEXT:   SITE 31:42 launch_bounds 'THREADS' -> {P}
// CAND-NEXT:   SITE 62:40 launch_grid 'THREADS' -> {P}
// CAND-NEXT:   SITE 62:55 launch_grid 'THREADS' -> {P}
// CAND-NEXT:   SITE 62:70 launch_block 'THREADS' -> {P}
// CAND:      CAND {{.*}} plain_kernel value=128
// CAND-NOT:  opaque_kernel

// NOTE:      kernel opaque_kernel cannot become a template (it is named on line 57 other than in a launch, where a template's name would not name one function): nothing in its code is lifted

// TPL:       template <int ITEMS_PER_THREAD = 4>
// TPL-NEXT:  __device__ void twice(float *x) {
// TPL:       template <int ITEMS_PER_THREAD = 4>
// TPL-NEXT:  __global__ void coop_kernel(float *x) { twice<ITEMS_PER_THREAD>(x); }
// TPL:       template <int BLOCK_SIZE = 256>
// TPL-NEXT:  static __global__ void __launch_bounds__(BLOCK_SIZE, 1) helper_kernel(float *x, int n) {
// TPL:       template <int [[P:[A-Z_]+]] = 128>
// TPL-NEXT:  __global__ void plain_kernel(float *x) {
// TPL:       __global__ void opaque_kernel(float *x) {
// TPL:       void setup() { register_kernel((const void *)opaque_kernel); }
// TPL:       cudaLaunchCooperativeKernel((void *)coop_kernel<ITEMS_PER_THREAD>, dim3(1), dim3(COOP_KERNEL_BLOCK_SIZE), args, 0, s);
// TPL-NEXT:  launch_with(helper_kernel<HELPER_KERNEL_BLOCK_SIZE>, dim3((n + HELPER_KERNEL_BLOCK_SIZE - 1) / HELPER_KERNEL_BLOCK_SIZE), dim3(HELPER_KERNEL_BLOCK_SIZE), s, x, n);
// TPL-NEXT:  plain_kernel<PLAIN_KERNEL_[[P]]><<<1, PLAIN_KERNEL_[[P]], 0, s>>>(x);
// TPL-NEXT:  opaque_kernel<<<1, 64, 0, s>>>(x);
