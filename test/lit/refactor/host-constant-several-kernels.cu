// One host constant sizing the launches of several kernels (SHOC's scan:
// `int num_threads = 256;` then reduce<T, 256>, scan_single_block<T, 256>
// and bottom_scan<T, vecT, 256>, each launched with num_threads): the
// kernels' candidates share the definition, so the plan lifts them together
// under one name and every template argument follows it (only the first
// kernel's did, launching the others with a block their code was not
// instantiated for).
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2>&1 | FileCheck %s
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX

template <typename T, int BLOCK>
__global__ void block_sums(const T *in, T *sums, int n) {
  __shared__ T partial[BLOCK];
  T acc = 0;
  for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += gridDim.x * BLOCK)
    acc += in[i];
  partial[threadIdx.x] = acc;
  __syncthreads();
  for (int k = BLOCK / 2; k > 0; k /= 2) {
    if (threadIdx.x < k)
      partial[threadIdx.x] += partial[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    sums[blockIdx.x] = partial[0];
}

template <typename T, int BLOCK>
__global__ void scan_sums(T *sums, int count) {
  __shared__ T s[BLOCK];
  s[threadIdx.x] = threadIdx.x < count ? sums[threadIdx.x] : T(0);
  __syncthreads();
  for (int k = 1; k < BLOCK; k *= 2) {
    T v = threadIdx.x >= k ? s[threadIdx.x - k] : T(0);
    __syncthreads();
    s[threadIdx.x] += v;
    __syncthreads();
  }
  if (threadIdx.x < count)
    sums[threadIdx.x] = s[threadIdx.x];
}

template <typename T> void scan(const T *in, T *sums, int n) {
  int num_blocks = 64;
  int num_threads = 256;
  block_sums<T, 256><<<num_blocks, num_threads>>>(in, sums, n);
  scan_sums<T, 256><<<1, num_threads>>>(sums, num_blocks);
}

template void scan<float>(const float *, float *, int);

// CAND:      CAND block_size block_sums value=256 spelling=num_threads high
// CAND-NEXT:   SITE 50:21 definition '256' -> {P} shared
// CAND-NEXT:   SITE 51:17 template_arg '256' -> {P}
// CAND:      CAND block_size scan_sums value=256 spelling=num_threads high
// CAND-NEXT:   SITE 50:21 definition '256' -> {P} shared
// CAND-NEXT:   SITE 52:16 template_arg '256' -> {P}
// CHECK: wrote {{.*}}out.cu {{.*}}: 2 parameters in 2 kernels
// TPL: int num_threads = BLOCK_SIZE;
// TPL-NEXT: block_sums<T, BLOCK_SIZE><<<num_blocks, num_threads>>>(in, sums, n);
// TPL-NEXT: scan_sums<T, BLOCK_SIZE><<<1, num_threads>>>(sums, num_blocks);
// PTX: ptx-identical: 2 function(s) identical
