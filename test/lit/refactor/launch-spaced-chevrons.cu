// nvcc reads a launch with spaced chevrons (`k << < grid, block >> > (...)`,
// as in older benchmark suites); Clang's lexer does not. The file is parsed
// from a copy with the chevrons joined, of the same length, so every site
// keeps its place, and the output keeps the original spelling.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s -o %t/out.cu 2>&1 | FileCheck %s --check-prefix=OK
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL

#include <ostream>

const int threads_per_block = 256;

__global__ void step(float *x, int n) {
  int i = blockIdx.x * threads_per_block + threadIdx.x;
  if (i < n)
    x[i] += 1.0f;
}

template <class T> struct Box {
  T v;
  template <class U> friend std::ostream &operator<<(std::ostream &, const Box<U> &);
};
// `operator<< <T>` is no launch: left alone.
template <class T> std::ostream &operator<<(std::ostream &os, const Box<T> &b) {
  return os << b.v;
}
template std::ostream &operator<< <int>(std::ostream &, const Box<int> &);

void run(float *x, int n) {
  int blocks = (n + threads_per_block - 1) / threads_per_block;
  step << < blocks, threads_per_block >> > (x, n);
  step <<<blocks, threads_per_block >> > (x, n);
}

// OK-NOT: error
// OK: ktune-refactor: wrote {{.*}}out.cu and {{.*}}out.json: 1 parameter in 1 kernel
// TPL: template <int BLOCK_SIZE = 256>
// TPL-NEXT: __global__ void step(float *x, int n) {
// TPL: step<BLOCK_SIZE> << < blocks, BLOCK_SIZE >> > (x, n);
// TPL: step<BLOCK_SIZE> <<<blocks, BLOCK_SIZE >> > (x, n);
