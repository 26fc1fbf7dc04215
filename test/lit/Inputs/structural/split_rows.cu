// split_rows.cu - out[r, i] = in[r, i] * scale[r], one block per row, the
// row's elements in a block-stride loop: the row can be split.
__global__ void scale_rows(float *out, const float *in, const float *scale,
                           int cols) {
  const float s = scale[blockIdx.x];
  const long base = static_cast<long>(blockIdx.x) * cols;
  for (int i = threadIdx.x; i < cols; i += blockDim.x)
    out[base + i] = in[base + i] * s;
}

void launch_scale_rows(float *out, const float *in, const float *scale,
                       int rows, int cols, cudaStream_t stream) {
  scale_rows<<<rows, 256, 0, stream>>>(out, in, scale, cols);
}
