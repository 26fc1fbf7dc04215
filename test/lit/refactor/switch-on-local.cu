// A switch on a host local its condition cannot spell (`n_threads` from a
// helper, as PointNet++'s sampling launcher writes it): a case whose
// template argument is the case's own number (`case 512: k<512>` launched
// with `n_threads` threads) is no knob, since the kernel sizes its shared
// memory by the argument and the launch runs the number of threads the case
// names; a case whose argument is another number than its label stays one.
// REQUIRES: clang
// RUN: ktune-refactor %s --candidates | FileCheck %s
// RUN: ktune-refactor %s --candidates | %python -c "import json, sys; print(sorted({c['kernel'] for c in json.load(sys.stdin)['candidates']}))" | FileCheck %s --check-prefix=KERNELS

inline int opt_n_threads(int work) {
  const int pow_2 = 31 - __builtin_clz(work);
  return max(min(1 << pow_2, 512), 1);
}

template <unsigned int block_size>
__global__ void fps(int n, float *out) {
  __shared__ float d[block_size];
  d[threadIdx.x] = out[blockIdx.x * n + threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0)
    out[blockIdx.x] = d[block_size - 1];
}

void launch_fps(int b, int n, float *out, cudaStream_t stream) {
  unsigned int n_threads = opt_n_threads(n);
  switch (n_threads) {
  case 512:
    fps<512><<<b, n_threads, 0, stream>>>(n, out);
    break;
  case 256:
    fps<256><<<b, n_threads, 0, stream>>>(n, out);
    break;
  default:
    fps<512><<<b, n_threads, 0, stream>>>(n, out);
  }
}

template <int BLOCK>
__global__ void scale(int n, float *out) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n)
    out[i] *= 2;
}

inline int kind_of(int n) { return n > 4096; }

void launch_scale(int n, float *out) {
  int kind = kind_of(n);
  switch (kind) {
  case 0:
    scale<128><<<(n + 127) / 128, 128>>>(n, out);
    break;
  default:
    scale<512><<<(n + 511) / 512, 512>>>(n, out);
  }
}

// KERNELS: ['scale']
// CHECK:      "condition": "unknown",
// CHECK:      "kernel": "scale",
// CHECK:      "value": 128,
// CHECK:      "condition": "unknown",
// CHECK:      "kernel": "scale",
// CHECK:      "value": 512,
