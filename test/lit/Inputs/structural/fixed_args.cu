// fixed_args.cu - integer arguments a shape can fix at compile time, and
// those it cannot: written in the kernel, read by nothing, not integers.
#define ARG_DECL(name) int name

__global__ void scale_row(float *out, const float *in, int cols,
                          const unsigned rows, float alpha) {
  const long base = static_cast<long>(blockIdx.x) * cols;
  for (int i = threadIdx.x; i < cols; i += blockDim.x)
    out[base + i] = in[base + i] * alpha + (blockIdx.x < rows ? 0.f : 1.f);
}

__global__ void countdown(int *out, int n, int unused) {
  while (n > 0)
    out[--n] = threadIdx.x;
}

__global__ void through_pointer(int *out, int n) {
  int *p = &n;
  out[threadIdx.x] = *p;
}

__global__ void macro_arg(int *out, ARG_DECL(n)) { out[threadIdx.x] = n; }

void launch_scale_row(float *out, const float *in, int rows, int cols,
                      float alpha, cudaStream_t stream) {
  scale_row<<<rows, 256, 0, stream>>>(out, in, cols, rows, alpha);
}

void launch_computed(float *out, const float *in, int rows, int cols,
                     cudaStream_t stream) {
  scale_row<<<rows, 256, 0, stream>>>(out, in, cols * 2, rows, 1.f);
}

void launch_others(int *out, int n, cudaStream_t stream) {
  countdown<<<1, 32, 0, stream>>>(out, n, 0);
  through_pointer<<<1, 32, 0, stream>>>(out, n);
  macro_arg<<<1, 32, 0, stream>>>(out, n);
}
