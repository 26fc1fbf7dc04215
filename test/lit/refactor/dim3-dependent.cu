// In a host template, `auto grid = dim3(divUp(t.rows(), kRowsPerBlock))`
// whose argument has a dependent type is a construction Clang resolves only
// at instantiation: its dims are read all the same, so the constants of
// the launch (the block, the rows per block of its grid and template
// arguments) are lifted. A dim3 made of anything else is still refused.
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: FileCheck %s --check-prefix=NOTES --allow-empty < %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX

template <typename T> struct Matrix {
  T *data;
  int rows_, cols_;
  __host__ __device__ int rows() const { return rows_; }
  __host__ __device__ int cols() const { return cols_; }
};

inline int divUp(int a, int b) { return (a + b - 1) / b; }

template <typename T, int RowsPerBlock, int Threads>
__global__ void rowMax(Matrix<T> m, T *out) {
  int row = blockIdx.x * RowsPerBlock + threadIdx.x / (Threads / RowsPerBlock);
  if (row >= m.rows())
    return;
  T best = m.data[row * m.cols()];
  for (int c = 1; c < m.cols(); ++c)
    best = best < m.data[row * m.cols() + c] ? m.data[row * m.cols() + c] : best;
  out[row] = best;
}

template <typename T> void runRowMax(Matrix<T> &m, T *out, cudaStream_t stream) {
  constexpr int kThreadsPerBlock = 256;
  constexpr int kRowsPerBlock = 8;
  auto block = dim3(kThreadsPerBlock);
  auto grid = dim3(divUp(m.rows(), kRowsPerBlock));
  rowMax<T, kRowsPerBlock, kThreadsPerBlock><<<grid, block, 0, stream>>>(m, out);
}

template void runRowMax<float>(Matrix<float> &, float *, cudaStream_t);

// NOTES-NOT: cannot be followed

// TPL:      template <typename T, int BLOCK_SIZE = 256, int ROWS_PER_BLOCK = 8> void runRowMax(Matrix<T> &m, T *out, cudaStream_t stream) {
// TPL-NEXT:   constexpr int kThreadsPerBlock = BLOCK_SIZE;
// TPL-NEXT:   constexpr int kRowsPerBlock = ROWS_PER_BLOCK;
// TPL:        rowMax<T, kRowsPerBlock, kThreadsPerBlock><<<grid, block, 0, stream>>>(m, out);

// PTX: ptx-identical: {{[1-9][0-9]*}} function(s) identical
