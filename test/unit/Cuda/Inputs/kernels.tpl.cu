// Small kernels whose resources and behaviour the tests know.

// Static shared memory of 4 * TILE bytes; the block reverses its tile.
template <int TILE>
__global__ void reverse_tile(float *out, const float *in, int n) {
  __shared__ float tile[TILE];
  int i = blockIdx.x * TILE + threadIdx.x;
  tile[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  int j = blockIdx.x * TILE + (TILE - 1 - threadIdx.x);
  if (j < n)
    out[j] = tile[threadIdx.x];
}

// Reverses each run of BLOCK elements through dynamic shared memory of
// BLOCK * ELEMS floats (over 48 KB for large ELEMS); ELEMS changes the
// staging, not the result.
template <int BLOCK, int ELEMS>
__global__ void staged_copy(float *out, const float *in, int n) {
  extern __shared__ float stage[];
  long base = static_cast<long>(blockIdx.x) * BLOCK * ELEMS;
  for (int e = 0; e < ELEMS; ++e) {
    long i = base + e * BLOCK + threadIdx.x;
    stage[e * BLOCK + threadIdx.x] = i < n ? in[i] : 0.0f;
  }
  __syncthreads();
  for (int e = 0; e < ELEMS; ++e) {
    long i = base + e * BLOCK + threadIdx.x;
    if (i < n)
      out[i] = stage[e * BLOCK + (BLOCK - 1 - threadIdx.x)];
  }
}

// Holds ACC live values per thread: registers grow with ACC.
template <int BLOCK, int ACC>
__global__ void many_registers(float *out, const float *in, int n) {
  float acc[ACC];
  int i = blockIdx.x * BLOCK + threadIdx.x;
#pragma unroll
  for (int a = 0; a < ACC; ++a)
    acc[a] = i < n ? in[(i + a * 97) % n] : 0.0f;
  float s = 0.0f;
#pragma unroll
  for (int r = 0; r < 4; ++r)
#pragma unroll
    for (int a = 0; a < ACC; ++a)
      s += acc[a] * acc[(a * 7 + r) % ACC];
  if (i < n)
    out[i] = s;
}

// acc[i] += x[i]: an in/out buffer.
template <int BLOCK>
__global__ void accumulate(float *acc, const float *x, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n)
    acc[i] += x[i];
}

// out[i] = 2 * in[i], written as plainly as possible: a reference kernel.
extern "C" __global__ void scale_reference(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = 2.0f * in[i];
}

// out[i] = 2 * in[i], with faults planted by FAULT:
//   0 correct, 1 one wrong value, 2 last element unwritten, 3 one NaN,
//   4 out-of-bounds write, 5 never finishes, 6 device-side trap.
template <int BLOCK, int FAULT>
__global__ void scale(float *out, const float *in, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (FAULT == 5)
    for (;;)
      __nanosleep(1000);
  if (i >= n)
    return;
  float v = 2.0f * in[i];
  if (FAULT == 1 && i == n / 2)
    v += 1.0f;
  if (FAULT == 2 && i == n - 1)
    return;
  if (FAULT == 3 && i == 7)
    v = __int_as_float(0x7fc00000);
  if (FAULT == 4) {
    out[i + (1ll << 40)] = v;
    return;
  }
  if (FAULT == 6 && i == 0)
    __trap();
  out[i] = v;
}

// Integer output: out[i] = in[i] * 3 - 1, the last element left unwritten
// when SKIP_LAST.
template <int BLOCK, int SKIP_LAST>
__global__ void int_affine(int *out, const int *in, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i >= n || (SKIP_LAST && i == n - 1))
    return;
  out[i] = in[i] * 3 - 1;
}
