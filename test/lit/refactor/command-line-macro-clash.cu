// A project macro defined on the command line with a common name (RWKV's
// kernels: `-DN=64 -DCC=4096`) that the toolkit's cuda.h and Clang's own
// CUDA headers use as a parameter name (`size_t N`): nvcc never reads those
// headers for this file, Clang's CUDA wrapper does. They are read through
// copies that keep the macro out, so the file parses as nvcc compiles it;
// the project's code still sees the macro (its tile becomes a parameter
// defaulting to the command line's value).
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --verify -o %t/out.cu -- -DN=64 -DCC=4096 2> %t/stderr.txt
// RUN: FileCheck %s --check-prefix=VERIFY < %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL

__global__ void kernel_forward(const int B, const int T, float *y,
                               const float *r) {
  __shared__ float rr[N];
  const int i = threadIdx.x;
  rr[i] = r[blockIdx.x * N + i];
  __syncthreads();
  y[blockIdx.x * N + i] = rr[N - 1 - i] * CC;
}

void cuda_forward(int B, int T, float *y, const float *r) {
  kernel_forward<<<B * T / N, N>>>(B, T, y, r);
}

// VERIFY-NOT: cannot parse
// VERIFY: self-check: {{[1-9][0-9]*}} function(s) PTX-identical at the defaults
// VERIFY: wrote

// TPL:      template <int TILE = 64>
// TPL-NEXT: __global__ void kernel_forward(
// TPL:        rr[TILE - 1 - i] * CC;
