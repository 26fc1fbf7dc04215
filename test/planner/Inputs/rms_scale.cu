// rms_scale.cu - RMS normalisation of each row of a float matrix, scaled by
// a per-column weight: out[r, i] = in[r, i] * rsqrt(mean(in[r, :]^2) + eps)
// * weight[i]. One block per row; a block-wide shared-memory reduction.
//
// Tuning constants: kBlockSize threads per block (launch, shared array,
// reduction loop), kItemsPerThread elements each thread keeps in registers,
// and the unroll factor of the reduction tree.

#include <cuda_runtime.h>

constexpr int kBlockSize = 256;
constexpr int kItemsPerThread = 4;

__global__ void __launch_bounds__(kBlockSize)
    rms_scale(float *out, const float *in, const float *weight, int cols,
              float eps) {
  __shared__ float partial[kBlockSize];
  const float *row = in + static_cast<long>(blockIdx.x) * cols;
  float *dst = out + static_cast<long>(blockIdx.x) * cols;

  float sum = 0.0f;
  for (int base = threadIdx.x * kItemsPerThread; base < cols;
       base += kBlockSize * kItemsPerThread) {
#pragma unroll
    for (int k = 0; k < kItemsPerThread; ++k)
      if (base + k < cols)
        sum += row[base + k] * row[base + k];
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
#pragma unroll 4
  for (int stride = kBlockSize / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride)
      partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  const float scale = rsqrtf(partial[0] / cols + eps);
  for (int i = threadIdx.x; i < cols; i += kBlockSize)
    dst[i] = row[i] * scale * weight[i];
}

void launch_rms_scale(float *out, const float *in, const float *weight,
                      int rows, int cols, float eps, cudaStream_t stream) {
  rms_scale<<<rows, kBlockSize, 0, stream>>>(out, in, weight, cols, eps);
}
