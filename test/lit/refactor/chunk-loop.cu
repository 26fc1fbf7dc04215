// A loop over a thread's chunks of the block's width: GPUMD's patches
// (`number_of_patches = (N - 1) / 1024 + 1; ... n = tid + patch * 1024`)
// and a chunk count the host passes (llama_cu_awq's RMSNorm:
// `index = threadIdx.x + i * 1024`). The width, spelled as the stride from
// the thread's index and as the count's divisor, is the block size: those
// literals join the launch block, so the kernel reads every element at any
// block size the host's count allows. Strides of two widths, or narrower
// than a warp, are left alone.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates -- | %python %inputs/refactor/summarize.py | FileCheck %s
// RUN: ktune-refactor %s -o %t/out.cu --
// RUN: grep -v '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL

// CHECK:      CAND block_size gpu_sum value=1024 spelling=1024 high
// CHECK-NEXT:   SITE 32:37 loop_bound '1024' -> {P}
// CHECK-NEXT:   SITE 33:28 shared_extent '1024' -> {P}
// CHECK-NEXT:   SITE 36:33 loop_stride '1024' -> {P}
// CHECK-NEXT:   SITE 70:16 launch_block '1024' -> {P}
// CHECK:      CAND block_size norm value=256 spelling=256 high
// CHECK-NEXT:   SITE 52:35 loop_stride '256' -> {P}
// CHECK-NEXT:   SITE 71:13 launch_block '256' -> {P}
// CHECK:      CAND block_size two_widths value=128 spelling=128
// CHECK-NEXT:   SITE 72:19 launch_block '128' -> {P}
// CHECK-NOT:  SITE

// TPL: int number_of_patches = (N - 1) / BLOCK_SIZE + 1;
// TPL: const int n = tid + patch * BLOCK_SIZE;

static __global__ void gpu_sum(const int N, const double *g, double *out) {
  const int tid = threadIdx.x;
  int number_of_patches = (N - 1) / 1024 + 1; // never changed
  __shared__ double s_data[1024];
  s_data[tid] = 0.0;
  for (int patch = 0; patch < number_of_patches; ++patch) {
    const int n = tid + patch * 1024;
    if (n < N)
      s_data[tid] += g[n];
  }
  __syncthreads();
  for (int offset = blockDim.x >> 1; offset > 0; offset >>= 1) {
    if (tid < offset)
      s_data[tid] += s_data[tid + offset];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = s_data[0];
}

__global__ void norm(float *x, int size, int elementsPerThread) {
  for (int i = 0; i < elementsPerThread; i++) {
    int index = threadIdx.x + i * 256;
    if (index < size)
      x[index] *= 0.5f;
  }
}

__global__ void two_widths(float *x, int size, int chunks) {
  for (int i = 0; i < chunks; i++) {
    int a = threadIdx.x + i * 128;
    int b = threadIdx.x + i * 256;
    if (a < size)
      x[a] += 1.0f;
    if (b < size)
      x[b] += 1.0f;
  }
}

void run(int N, const double *g, double *out, float *x) {
  gpu_sum<<<3, 1024>>>(N, g, out);
  norm<<<1, 256>>>(x, N, (N + 255) / 256);
  two_widths<<<1, 128>>>(x, N, 4);
}
