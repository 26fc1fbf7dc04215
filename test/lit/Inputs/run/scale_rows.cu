// scale_rows.cu - out[r, i] = in[r, i] * scale[r]: the small kernel of the
// `ktune run` tests. One block per row; each thread handles kItems
// consecutive elements per step. Tuning constants: kThreads (block size),
// kItems (items per thread), the unroll factor of the inner loop.

constexpr int kThreads = 128;
constexpr int kItems = 2;

__global__ void __launch_bounds__(kThreads)
    scale_rows(float *out, const float *in, const float *scale, int cols) {
  const float s = scale[blockIdx.x];
  const float *row = in + static_cast<long>(blockIdx.x) * cols;
  float *dst = out + static_cast<long>(blockIdx.x) * cols;
  for (int base = threadIdx.x * kItems; base < cols; base += kThreads * kItems) {
#pragma unroll 2
    for (int k = 0; k < kItems; ++k)
      if (base + k < cols)
        dst[base + k] = row[base + k] * s;
  }
}

void launch_scale_rows(float *out, const float *in, const float *scale,
                       int rows, int cols, cudaStream_t stream) {
  scale_rows<<<rows, kThreads, 0, stream>>>(out, in, scale, cols);
}
