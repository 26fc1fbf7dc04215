// What nvcc's implicit includes declare is declared when Clang parses:
// host clock() and CLOCKS_PER_SEC without <ctime>, time(), uint, and the
// host min/max overloads for mixed types (max(double, float), min(int,
// unsigned)). The file includes nothing, as files built by nvcc may.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s -o %t/out.cu 2>&1 | FileCheck %s --check-prefix=OK
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL

#define THREADS 256

__global__ void saxpy(float a, const float *x, float *y, uint n) {
  uint i = blockIdx.x * THREADS + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

double timed_saxpy(float a, const float *x, float *y, uint n) {
  clock_t start = clock();
  saxpy<<<(n + THREADS - 1) / THREADS, THREADS>>>(a, x, y, n);
  double seconds = (double)(clock() - start) / CLOCKS_PER_SEC;
  double floor_s = max(seconds, 1e-9f);
  unsigned blocks = min(1024, n / THREADS);
  long stamp = (long)time(NULL);
  return floor_s + blocks + (stamp & 1);
}

// OK-NOT: error
// OK: ktune-refactor: wrote {{.*}}out.cu and {{.*}}out.json: 1 parameter in 1 kernel
// TPL:      template <int BLOCK_SIZE = 256>
// TPL-NEXT: __global__ void saxpy(float a, const float *x, float *y, uint n) {
// TPL:        saxpy<BLOCK_SIZE><<<(n + BLOCK_SIZE - 1) / BLOCK_SIZE, BLOCK_SIZE>>>(a, x, y, n);
// TPL:        unsigned blocks = min(1024, n / THREADS);
