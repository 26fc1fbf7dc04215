// `register` locals (removed from C++17, still taken by nvcc and common in
// HPC codes) do not stop the parse.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s -o %t/out.cu 2>&1 | FileCheck %s
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL

__global__ void rates(float *r, int n) {
  register int i = blockIdx.x * 128 + threadIdx.x;
  register float t = r[i];
  if (i < n)
    r[i] = t * t;
}

void run_rates(float *r, int n) { rates<<<(n + 127) / 128, 128>>>(r, n); }

// CHECK: wrote {{.*}}out.cu {{.*}}: 1 parameter in 1 kernel
// TPL: template <int BLOCK_SIZE = 128>
// TPL-NEXT: __global__ void rates(float *r, int n) {
