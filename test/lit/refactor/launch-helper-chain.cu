// Launch helpers read through the calls they make: a member template that
// forwards to another, which hands the kernel to a function defined in
// another file (its parameters name the grid and the block); a free function
// declared here and defined elsewhere; a helper over cudaLaunchKernel. A
// function handed a kernel whose parameters name no grid and block is no
// launch, and its kernel keeps its constants. In generic lambdas (a type
// dispatch) the helper's call stays unresolved; its by-value parameters
// leave the block local unchanged.
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates 2>/dev/null | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: FileCheck %s --check-prefix=NOTE < %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX
#include <cstdint>
#include <type_traits>
#include <utility>

#define THREADS 256

struct Encoder {
  template <typename F, typename... Params>
  void add_node(F *func, dim3 grid_dim, dim3 block_dim, Params &&...params) {
    add_node_ex(func, grid_dim, block_dim, {}, 0, params...);
  }
  template <typename F, typename... Params>
  void add_node_ex(F func, dim3 grid_dim, dim3 block_dim, dim3 cluster_dim,
                   uint32_t smem_bytes, Params &&...params) {
    void *ptrs[sizeof...(Params)];
    size_t i = 0;
    ([&](auto &&p) { ptrs[i++] = static_cast<void *>(&p); }(
         std::forward<Params>(params)),
     ...);
    add_node_raw(reinterpret_cast<void *>(func), grid_dim, block_dim,
                 cluster_dim, smem_bytes, ptrs);
  }
  // Defined in another file.
  void add_node_raw(void *func, dim3 grid_dim, dim3 block_dim,
                    dim3 cluster_dim, uint32_t smem_bytes, void **params);
};

template <typename T, int N_READS>
__global__ void scale(T *x, int n) {
  int base = (blockIdx.x * blockDim.x + threadIdx.x) * N_READS;
#pragma unroll
  for (int j = 0; j < N_READS; ++j)
    if (base + j < n)
      x[base + j] *= T(2);
}

__global__ void __launch_bounds__(THREADS) shift(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] += 1.0f;
}

template <typename Kernel>
void launch_api(Kernel kernel, dim3 grid, dim3 block, void **args) {
  cudaLaunchKernel(reinterpret_cast<const void *>(kernel), grid, block, args,
                   0, nullptr);
}

__global__ void negate(float *x, int n) {
  int i = blockIdx.x * 128 + threadIdx.x;
  if (i < n)
    x[i] = -x[i];
}

// Defined in another file.
void launch_on(void (*kernel)(float *, int), dim3 grid, dim3 threads,
               float *x, int n);

__global__ void halve(float *x, int n) {
  int i = blockIdx.x * 64 + threadIdx.x;
  if (i < n)
    x[i] *= 0.5f;
}

// Defined in another file: no grid, no block among its parameters.
void register_entry(void *func, int priority, int flags);

__global__ void opaque(float *x) {
  __shared__ float t[32];
  t[threadIdx.x] = x[threadIdx.x];
  x[threadIdx.x] = t[31 - threadIdx.x];
}

void run(Encoder &encoder, float *x, int n) {
  constexpr int N_READS = 4;
  auto kernel = scale<float, N_READS>;
  encoder.add_node(kernel, (n + 128 * N_READS - 1) / (128 * N_READS), 128, x,
                   n);
  encoder.add_node(shift, (n + THREADS - 1) / THREADS, THREADS, x, n);
  void *args[] = {&x, &n};
  launch_api(negate, dim3((n + 127) / 128), dim3(128), args);
  launch_on(halve, (n + 63) / 64, 64, x, n);
  register_entry(reinterpret_cast<void *>(opaque), 1, 0);
}

static constexpr int rows_per_block = 8;

template <typename T, int rows, int n_per_thread>
__global__ void gemv(const T *m, T *out, int cols) {
  int row = blockIdx.x * rows + threadIdx.y;
  T acc = 0;
  for (int c = threadIdx.x * n_per_thread; c < cols; c += 32 * n_per_thread)
    for (int j = 0; j < n_per_thread; ++j)
      acc += m[row * cols + c + j];
  out[row] = acc;
}

template <typename F> void dispatch_types(bool f, F &&fn) {
  if (f)
    fn(float{});
  else
    fn(double{});
}

template <typename F> void dispatch_n(int n, F &&fn) {
  if (n == 4)
    fn(std::integral_constant<int, 4>{});
  else
    fn(std::integral_constant<int, 1>{});
}

void run_typed(Encoder &encoder, const void *m, void *out, int rows, int cols,
               bool f, int n) {
  dispatch_types(f, [&](auto tag) {
    using T = decltype(tag);
    dim3 block_dims{32, rows_per_block};
    uint32_t num_blocks = (rows + rows_per_block - 1) / rows_per_block;
    dispatch_n(n, [&](auto n_per_thread) {
      auto kernel = gemv<T, rows_per_block, n_per_thread()>;
      encoder.add_node(kernel, num_blocks, block_dims, (const T *)m, (T *)out,
                       cols);
    });
  });
}

// CAND:      CAND {{.*}} scale value=4 spelling=N_READS
// CAND:      CAND block_size scale value=128 spelling=128 high launch-param
// CAND-NEXT:   SITE 93:33 launch_grid '128' -> {P}
// CAND-NEXT:   SITE 93:55 launch_grid '128' -> {P}
// CAND-NEXT:   SITE 93:71 launch_block '128' -> {P}
// CAND:      CAND block_size shift value=256 spelling=THREADS high
// CAND-NEXT:   SITE 53:35 launch_bounds 'THREADS' -> {P}
// CAND-NEXT:   SITE 95:32 launch_grid 'THREADS' -> {P}
// CAND-NEXT:   SITE 95:47 launch_grid 'THREADS' -> {P}
// CAND-NEXT:   SITE 95:56 launch_block 'THREADS' -> {P}
// CAND:      CAND block_size negate value=128 spelling=128 high
// CAND:        SITE 97:50 launch_block '128' -> {P}
// CAND:      CAND block_size halve value=64 spelling=64 high
// CAND:        SITE 98:35 launch_block '64' -> {P}
// CAND:      CAND block_size gemv value=32 spelling=32 high
// CAND:      CAND other gemv value=8 spelling=rows_per_block high
// CAND-NEXT:   SITE 132:25 launch_block 'rows_per_block' -> {P}
// CAND-NEXT:   SITE 133:35 launch_grid 'rows_per_block' -> {P}
// CAND-NEXT:   SITE 133:57 launch_grid 'rows_per_block' -> {P}
// CAND-NEXT:   SITE 135:29 template_arg 'rows_per_block' -> {P}
// CAND-NOT:  opaque

// NOTE: kernel opaque cannot become a template (it is named on line 99 other than in a launch

// TPL:      template <int BLOCK_SIZE = 256>
// TPL-NEXT: __global__ void __launch_bounds__(BLOCK_SIZE) shift(float *x, int n) {
// TPL:      void run(Encoder &encoder, float *x, int n) {
// TPL:        encoder.add_node(shift<SHIFT_BLOCK_SIZE>, (n + SHIFT_BLOCK_SIZE - 1) / SHIFT_BLOCK_SIZE, SHIFT_BLOCK_SIZE, x, n);
// TPL:        launch_api(negate<NEGATE_BLOCK_SIZE>, dim3((n + (NEGATE_BLOCK_SIZE - 1)) / NEGATE_BLOCK_SIZE), dim3(NEGATE_BLOCK_SIZE), args);
// TPL-NEXT:   launch_on(halve<HALVE_BLOCK_SIZE>, (n + (HALVE_BLOCK_SIZE - 1)) / HALVE_BLOCK_SIZE, HALVE_BLOCK_SIZE, x, n);
// TPL-NEXT:   register_entry(reinterpret_cast<void *>(opaque), 1, 0);
// TPL:        dim3 block_dims{BLOCK_SIZE, ROWS_PER_BLOCK};
// TPL:          auto kernel = gemv<T, ROWS_PER_BLOCK, n_per_thread(), BLOCK_SIZE>;

// PTX: identical
