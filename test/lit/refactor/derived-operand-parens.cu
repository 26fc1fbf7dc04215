// A constant derived from another by a compound form (`#define RADIUS
// (TAPS / 2)`, RADIUS -> `TAPS / 2`) spelled as an operand inside an array
// extent (`smem[BDIM + 2 * RADIUS]`): the replacement is parenthesised there,
// as anywhere else, or `2 * TAPS / 2` would size the array 9, not 8.
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s -o %t/out.cu 2>&1 | FileCheck %s
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX

#define TAPS 9
#define RADIUS (TAPS / 2)
#define BDIM 32

__constant__ float coef[RADIUS + 1];

__global__ void stencil(const float *in, float *out) {
  __shared__ float smem[BDIM + 2 * RADIUS];
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  int s = threadIdx.x + RADIUS;
  smem[s] = in[idx];
  if (threadIdx.x < RADIUS) {
    smem[s - RADIUS] = idx >= RADIUS ? in[idx - RADIUS] : 0.0f;
    smem[s + BDIM] = in[idx + BDIM];
  }
  __syncthreads();
  float acc = coef[0] * smem[s];
  for (int i = 1; i <= RADIUS; i++)
    acc += coef[i] * (smem[s + i] + smem[s - i]);
  out[idx] = acc;
}

void run(const float *in, float *out, int n) {
  stencil<<<n / BDIM, BDIM>>>(in, out);
}

// CHECK: wrote {{.*}}out.cu
// TPL: __shared__ float smem[{{[A-Z_]+}} + 2 * ({{[A-Z_]+}} / 2)];
// PTX: ptx-identical: 1 function(s) identical
