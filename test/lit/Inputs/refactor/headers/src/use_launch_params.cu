// Launches through mylib::kernel_launch, one block size per branch.
#include "mylib/launch_params.cuh"

template <int block_size, bool squared>
__global__ void row_norm(const float *x, float *dst, const int ncols) {
  float sum = 0.0f;
  for (int col = threadIdx.x; col < ncols; col += block_size) {
    float v = x[blockIdx.x * ncols + col];
    sum += squared ? v * v : v;
  }
  __shared__ float partial[block_size];
  partial[threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int i = 1; i < block_size; ++i)
      sum += partial[i];
    dst[blockIdx.x] = sum;
  }
}

static void row_norm_cuda(const float *x, float *dst, const int ncols,
                          const int nrows, cudaStream_t stream) {
  const dim3 blocks_num(nrows, 1, 1);
  if (ncols < 1024) {
    const dim3 block_dims(256, 1, 1);
    const mylib::launch_params params = {blocks_num, block_dims, 0, stream};
    mylib::kernel_launch(row_norm<256, true>, params, x, dst, ncols);
  } else {
    const dim3 block_dims(1024, 1, 1);
    const mylib::launch_params params =
        mylib::launch_params{blocks_num, block_dims, 0, stream};
    mylib::kernel_launch(row_norm<1024, true>, params, x, dst, ncols);
  }
}

void row_norm_f32(const float *x, float *dst, int ncols, int nrows) {
  row_norm_cuda(x, dst, ncols, nrows, 0);
}
