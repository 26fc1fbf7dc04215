// ktune-block-size: a literal launch block size coupled with the kernel's
// loop stride and shared-memory extent; a macro; a kernel that is already a
// template. The fix is ktune-refactor's rewrite for that one parameter.
// REQUIRES: clang-tidy, cuda-headers
// RUN: %check_ktune_tidy %s ktune-block-size %t

__global__ void rmsnorm(float *out, const float *in, int n) {
// CHECK-FIXES: template <int BLOCK_SIZE = 256>
// CHECK-FIXES-NEXT: #line 7
// CHECK-FIXES-NEXT: __global__ void rmsnorm(float *out, const float *in, int n) {
// CHECK-FIXES-NEXT: static_assert(BLOCK_SIZE <= 1024, "ktune: BLOCK_SIZE <= 1024");
  __shared__ float partial[256];
// CHECK-MESSAGES: :[[@LINE-1]]:28: warning: hardcoded block size 256 in kernel 'rmsnorm' (3 sites); lift it to a template parameter [ktune-block-size]
// CHECK-FIXES: __shared__ float partial[BLOCK_SIZE];
  float acc = 0.0f;
  for (int i = threadIdx.x; i < n; i += 256)
// CHECK-MESSAGES: :[[@LINE-1]]:41: note: '256' here changes with it (loop stride)
// CHECK-FIXES: for (int i = threadIdx.x; i < n; i += BLOCK_SIZE)
    acc += in[blockIdx.x * n + i] * in[blockIdx.x * n + i];
  partial[threadIdx.x] = acc;
  __syncthreads();
  out[blockIdx.x] = partial[0];
}

void launch_rmsnorm(float *out, const float *in, int rows, int n) {
  rmsnorm<<<rows, 256>>>(out, in, n);
// CHECK-MESSAGES: :[[@LINE-1]]:19: note: '256' here changes with it (launch block dimension)
// CHECK-MESSAGES: :[[@LINE-16]]:28: note: fix lifts it to template parameter 'BLOCK_SIZE' = 256
// CHECK-FIXES: rmsnorm<BLOCK_SIZE><<<rows, BLOCK_SIZE>>>(out, in, n);
}
// The original host symbol stays, forwarding to the default instantiation.
// CHECK-FIXES: return launch_rmsnorm<256>(out, in, rows, n);

// A macro: its uses are rewritten, the #define stays.
#define THREADS 128
// CHECK-FIXES: #define THREADS 128
__global__ void scale(float *x, int n) {
  for (int i = blockIdx.x * THREADS + threadIdx.x; i < n; i += THREADS * gridDim.x)
// CHECK-MESSAGES: :[[@LINE-1]]:29: warning: hardcoded block size 128 in kernel 'scale' (5 sites); lift it to a template parameter [ktune-block-size]
// CHECK-MESSAGES: :[[@LINE-2]]:64: note: 'THREADS' here changes with it (loop stride)
// CHECK-FIXES: for (int i = blockIdx.x * BLOCK_SIZE + threadIdx.x; i < n; i += BLOCK_SIZE * gridDim.x)
    x[i] *= 2.0f;
}
void launch_scale(float *x, int n) { scale<<<(n + THREADS - 1) / THREADS, THREADS>>>(x, n); }
// CHECK-MESSAGES: :[[@LINE-1]]:51: note: 'THREADS' here changes with it (launch grid arithmetic)
// CHECK-MESSAGES: :[[@LINE-2]]:66: note: 'THREADS' here changes with it (launch grid arithmetic)
// CHECK-MESSAGES: :[[@LINE-3]]:75: note: 'THREADS' here changes with it (launch block dimension)
// CHECK-MESSAGES: note: fix lifts it to template parameter 'BLOCK_SIZE' = 128
// CHECK-FIXES: scale<BLOCK_SIZE><<<(n + BLOCK_SIZE - 1) / BLOCK_SIZE, BLOCK_SIZE>>>(x, n); }

// Already a template: the new parameter goes after the existing ones.
template <typename T>
__global__ void fill(T *x, T v) { x[blockIdx.x * 64 + threadIdx.x] = v; }
// CHECK-MESSAGES: :[[@LINE-1]]:50: warning: hardcoded block size 64 in kernel 'fill' (2 sites); lift it to a template parameter [ktune-block-size]
// CHECK-FIXES: template <typename T, int BLOCK_SIZE = 64>
// CHECK-FIXES: x[blockIdx.x * BLOCK_SIZE + threadIdx.x] = v; }
template <typename T>
void launch_fill(T *x, T v, int blocks) { fill<T><<<blocks, 64>>>(x, v); }
// CHECK-MESSAGES: :[[@LINE-1]]:61: note: '64' here changes with it (launch block dimension)
// CHECK-MESSAGES: note: fix lifts it to template parameter 'BLOCK_SIZE' = 64
// CHECK-FIXES: fill<T, BLOCK_SIZE><<<blocks, BLOCK_SIZE>>>(x, v); }
template void launch_fill<float>(float *, float, int);
