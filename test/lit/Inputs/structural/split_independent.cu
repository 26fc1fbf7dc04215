// split_independent.cu - a row kernel whose block-stride loop keeps its
// state inside each iteration: locals declared in the body, an inner loop
// that breaks, a helper reading threadIdx.x (each split block's threads are
// the original block's), a value computed before the loop and only read in
// it. Its row can be split.
struct Pair {
  float a, b;
  __device__ void scale(float s) { a *= s; b *= s; }
};

__device__ float lane_bias(const float *bias) { return bias[threadIdx.x % 32]; }

__global__ void pairs(float *out, const float *in, const float *bias, int cols) {
  const float b = lane_bias(bias);
  for (int i = threadIdx.x; i < cols; i += blockDim.x) {
    Pair p{in[blockIdx.x * 2 * cols + i], in[blockIdx.x * 2 * cols + cols + i]};
    p.scale(2.0f);
    float first = 0;
    for (int k = 0; k < 4; ++k) {
      first = in[blockIdx.x * 2 * cols + (i + k) % cols];
      if (first > 0)
        break;
    }
    out[blockIdx.x * cols + i] = p.a * p.b + first + b;
  }
}

void launch_pairs(float *out, const float *in, const float *bias, int rows,
                  int cols) {
  pairs<<<rows, 128>>>(out, in, bias, cols);
}
