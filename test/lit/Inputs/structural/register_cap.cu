// Register caps: a minimum of resident blocks per SM in __launch_bounds__.
#define ROW_BOUNDS __launch_bounds__(128)

// Bounds naming threads only: the minimum joins them.
__global__ void __launch_bounds__(256) bounded(float *out, const float *in, int n) {
  int i = blockIdx.x * 256 + threadIdx.x;
  if (i < n)
    out[i] = in[i] * 2.0f;
}

// Bounds from a template parameter.
template <int THREADS>
__global__ void __launch_bounds__(THREADS) templated(float *out, int n) {
  for (int i = blockIdx.x * THREADS + threadIdx.x; i < n; i += gridDim.x * THREADS)
    out[i] += 1.0f;
}

// No bounds: ktune writes them, none at the default.
template <typename T>
__global__ void unbounded(T *out, const T *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] + T(1);
}

// Bounds with their own minimum: that constant is the knob.
__global__ void __launch_bounds__(128, 4) own_minimum(float *x) { x[threadIdx.x] = 1.0f; }

// Bounds through a project macro: refused.
__global__ void ROW_BOUNDS through_macro(float *x) { x[threadIdx.x] = 2.0f; }

// Declared by a macro: refused.
#define DECLARE_KERNEL(name) \
  __global__ void name(float *x) { x[threadIdx.x] = 3.0f; }
DECLARE_KERNEL(by_macro)

void launch(float *out, const float *in, int n) {
  bounded<<<(n + 255) / 256, 256>>>(out, in, n);
  templated<64><<<132, 64>>>(out, n);
  unbounded<float><<<(n + 127) / 128, 128>>>(out, in, n);
  own_minimum<<<1, 128>>>(out);
  through_macro<<<1, 128>>>(out);
  by_macro<<<1, 32>>>(out);
}
