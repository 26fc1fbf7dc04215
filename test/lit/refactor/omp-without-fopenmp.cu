// `#include <omp.h>` without -fopenmp: nvcc's host compiler finds its
// omp.h anyway, so the file builds with nvcc; Clang finds ktune's
// declarations of the OpenMP API (the pragmas are ignored, as without
// -fopenmp they are). With -fopenmp the pragmas are parsed too.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s -o %t/out.cu 2>&1 | FileCheck %s --check-prefix=OK
// RUN: ktune-refactor %s --candidates -- -fopenmp | FileCheck %s --check-prefix=CAND
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL

#include <omp.h>

__global__ void fill(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = 1.0f;
}

double fill_all(float **xs, int count, int n) {
  double start = omp_get_wtime();
#pragma omp parallel for num_threads(4)
  for (int d = 0; d < count; ++d)
    fill<<<(n + 127) / 128, 128>>>(xs[d], n);
  omp_lock_t lock;
  omp_init_lock(&lock);
  omp_destroy_lock(&lock);
  return omp_get_wtime() - start + omp_get_max_threads();
}

// OK: ktune-refactor: wrote {{.*}}out.cu and {{.*}}out.json: 1 parameter in 1 kernel
// CAND: "kind": "block_size"
// The kernel reads blockDim: the block size is a launch parameter of the
// host function, the kernel stays as it is.
// TPL: __global__ void fill(float *x, int n) {
// TPL: template <int BLOCK_SIZE = 128>
// TPL-NEXT: double fill_all(float **xs, int count, int n) {
// TPL: fill<<<(n + (BLOCK_SIZE - 1)) / BLOCK_SIZE, BLOCK_SIZE>>>(xs[d], n);
