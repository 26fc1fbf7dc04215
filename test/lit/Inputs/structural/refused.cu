// refused.cu - row kernels whose row cannot be split over blocks, one
// reason each; every one is launched one block per row.
__device__ float total;

__global__ void block_sum(float *out, const float *in, int cols) {
  __shared__ float partial[256];
  float acc = 0;
  for (int i = threadIdx.x; i < cols; i += blockDim.x)
    acc += in[blockIdx.x * cols + i];
  partial[threadIdx.x] = acc;
  if (threadIdx.x == 0)
    out[blockIdx.x] = partial[0];
}

__global__ void synced(float *out, const float *in, int cols) {
  for (int i = threadIdx.x; i < cols; i += blockDim.x)
    out[blockIdx.x * cols + i] = in[blockIdx.x * cols + i];
  __syncthreads();
}

__global__ void warp_sum(float *out, const float *in, int cols) {
  float first = in[blockIdx.x * cols + threadIdx.x];
  for (int i = threadIdx.x; i < cols; i += blockDim.x)
    out[blockIdx.x * cols + i] = in[blockIdx.x * cols + i] - first;
  first += __shfl_xor_sync(0xffffffff, first, 16);
  out[blockIdx.x * cols + threadIdx.x] = first;
}

__global__ void atomic_sum(float *out, const float *in, int cols) {
  for (int i = threadIdx.x; i < cols; i += blockDim.x)
    atomicAdd(&out[blockIdx.x], in[blockIdx.x * cols + i]);
}

__global__ void row_from_y(float *out, const float *in, int cols) {
  for (int i = threadIdx.x; i < cols; i += blockDim.x)
    out[blockIdx.y * cols + i] = in[blockIdx.y * cols + i];
}

__global__ void no_row(float *out, const float *in, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    out[i] = in[i];
}

__global__ void fixed_stride(float *out, const float *in, int cols) {
  for (int i = threadIdx.x; i < cols; i += 256)
    out[blockIdx.x * cols + i] = in[blockIdx.x * cols + i];
}

__device__ int row_of() { return blockIdx.x; }

__global__ void helper_reads_ids(float *out, const float *in, int cols) {
  for (int i = threadIdx.x; i < cols; i += blockDim.x)
    out[blockIdx.x * cols + i] = in[blockIdx.x * cols + i] + row_of();
}

__global__ void per_thread_partials(float *out, const float *in, int cols) {
  float acc = 0;
  for (int i = threadIdx.x; i < cols; i += blockDim.x)
    acc += in[blockIdx.x * cols + i];
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

#define LAUNCH_ROWS(kernel) kernel<<<rows, 256>>>(out, in, cols)

__global__ void macro_launched(float *out, const float *in, int cols) {
  for (int i = threadIdx.x; i < cols; i += blockDim.x)
    out[blockIdx.x * cols + i] = in[blockIdx.x * cols + i];
}

void launch_all(float *out, const float *in, int rows, int cols) {
  block_sum<<<rows, 256>>>(out, in, cols);
  synced<<<rows, 256>>>(out, in, cols);
  warp_sum<<<rows, 256>>>(out, in, cols);
  atomic_sum<<<rows, 256>>>(out, in, cols);
  row_from_y<<<dim3(1, rows), 256>>>(out, in, cols);
  no_row<<<1, 256>>>(out, in, cols);
  fixed_stride<<<rows, 256>>>(out, in, cols);
  helper_reads_ids<<<rows, 256>>>(out, in, cols);
  per_thread_partials<<<rows, 256>>>(out, in, cols);
  LAUNCH_ROWS(macro_launched);
}

// Iterations that depend on each other: a split runs only some of them.
__global__ void global_index(float *out, const float *in, int cols) {
  for (int i = threadIdx.x; i < cols; i += blockDim.x)
    out[blockIdx.x * cols + i] = in[blockIdx.x * blockDim.x + threadIdx.x];
}

__global__ void early_exit(float *out, const float *in, int cols) {
  for (int i = threadIdx.x; i < cols; i += blockDim.x) {
    if (in[blockIdx.x * cols + i] < 0)
      break;
    out[blockIdx.x * cols + i] = in[blockIdx.x * cols + i];
  }
}

__global__ void index_after_loop(float *out, const float *in, int cols) {
  int i;
  for (i = threadIdx.x; i < cols; i += blockDim.x)
    out[blockIdx.x * cols + i] = in[blockIdx.x * cols + i];
  out[blockIdx.x * cols] = i;
}

__global__ void step_in_body(float *out, const float *in, int cols) {
  for (int i = threadIdx.x; i < cols; i += blockDim.x) {
    out[blockIdx.x * cols + i] = in[blockIdx.x * cols + i];
    i += in[blockIdx.x * cols + i] > 0;
  }
}

__global__ void nested_loops(float *out, const float *in, int cols) {
  for (int i = threadIdx.x; i < cols; i += blockDim.x)
    for (int j = threadIdx.x; j < 4; j += blockDim.x)
      out[blockIdx.x * cols + i] = in[blockIdx.x * cols + j];
}

void launch_dependent(float *out, const float *in, int rows, int cols) {
  global_index<<<rows, 256>>>(out, in, cols);
  early_exit<<<rows, 256>>>(out, in, cols);
  index_after_loop<<<rows, 256>>>(out, in, cols);
  step_in_body<<<rows, 256>>>(out, in, cols);
  nested_loops<<<rows, 256>>>(out, in, cols);
}

// Memory written outside the block-stride loops: each of a row's blocks
// would write it.
__global__ void in_place_outside(float *x, const float *in, int cols) {
  for (int i = threadIdx.x; i < cols; i += blockDim.x)
    x[blockIdx.x * cols + i] = in[blockIdx.x * cols + i];
  if (threadIdx.x == 0)
    x[blockIdx.x * cols] *= 2;
}

__global__ void while_loop(float *x, int cols) {
  for (int i = threadIdx.x; i < cols; i += blockDim.x)
    x[blockIdx.x * cols + i] += 1;
  int j = threadIdx.x;
  while (j < cols) {
    x[blockIdx.x * cols + j] *= 2;
    j += blockDim.x;
  }
}

__device__ void bump(float *p) { *p += 1; }

__global__ void helper_writes(float *x, int cols) {
  for (int i = threadIdx.x; i < cols; i += blockDim.x)
    x[blockIdx.x * cols + i] = 0;
  bump(x + blockIdx.x * cols);
}

__global__ void braced_start(float *out, const float *in, int cols) {
  for (unsigned i{threadIdx.x}; i < cols; i += blockDim.x)
    out[blockIdx.x * cols + i] = in[blockIdx.x * cols + i];
}

void launch_outside(float *x, const float *in, int rows, int cols) {
  in_place_outside<<<rows, 256>>>(x, in, cols);
  while_loop<<<rows, 256>>>(x, cols);
  helper_writes<<<rows, 256>>>(x, cols);
  braced_start<<<rows, 256>>>(x, in, cols);
}
