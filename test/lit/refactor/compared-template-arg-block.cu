// A launch passing its block's value as a template argument that the kernel
// compares (FasterTransformer's find_context_dups: `match = (sum ==
// TB_SIZE)`, so the argument is never a knob) keeps its block: lifted
// alone, the block would change under an argument that stays 128. A block
// of a launch passing no such argument is still a launch parameter.
// REQUIRES: clang
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py | FileCheck %s

template <int TB>
__global__ void all_match(int *out, const int *a, const int *b, int n) {
  __shared__ int votes[TB];
  votes[threadIdx.x] = a[blockIdx.x * TB + threadIdx.x] == b[threadIdx.x];
  __syncthreads();
  int sum = 0;
  for (int i = 0; i < TB; ++i)
    sum += votes[i];
  if (threadIdx.x == 0 && sum == TB)
    out[blockIdx.x] = 1;
}

__global__ void clear(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = 0;
}

void find_dups(int *out, const int *a, const int *b, int n, int len) {
  clear<<<(n + 255) / 256, 256>>>(out, n);
  dim3 block;
  if (len <= 128) {
    block = 128;
    all_match<128><<<n, block>>>(out, a, b, n);
  } else {
    block = 512;
    all_match<512><<<n, block>>>(out, a, b, n);
  }
}

// CHECK-NOT: CAND block_size all_match
// CHECK:     CAND block_size clear value=256 spelling=256 high launch-param
// CHECK-NOT: CAND block_size all_match
