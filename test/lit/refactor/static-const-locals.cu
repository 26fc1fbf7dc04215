// static const locals of a host template set a kernel's template arguments
// and the launch geometry; the grid is a dim3 built from a dependent
// expression (this crashed). No crash: the locals' values are lifted, the
// kernel's own default stays as written, and the defaults give the same PTX.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: FileCheck %s --check-prefix=WROTE < %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL

template <typename T, int TPB, int COLS = 32>
__global__ void colsum(T *out, const T *in, int d, int n) {
  int col = blockIdx.x * COLS + threadIdx.x % COLS;
  T acc = 0;
  for (int r = threadIdx.x / COLS; r < n; r += TPB / COLS) acc += in[r * d + col];
  if (col < d) atomicAdd(&out[col], acc);
}
template <typename T> __global__ void scale(T *out, int d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < d) out[i] /= n;
}
template <typename T, typename I = int> void colmean(T *out, const T *in, I d, I n) {
  static const int TPB = 256;
  static const int Cols = 32;
  dim3 grid((d + Cols - 1) / Cols);
  colsum<T, TPB, Cols><<<grid, TPB>>>(out, in, d, n);
  scale<T><<<(d + TPB - 1) / TPB, TPB>>>(out, d, n);
}
template void colmean<float, int>(float *, const float *, int, int);

// WROTE: wrote {{.*}}out.cu and {{.*}}out.json: 3 parameters in 2 kernels

// TPL:      template <typename T, int TPB, int COLS = 32>
// TPL:      template <typename T, typename I = int, {{.*}}int COLSUM_TPB = 256, int COLSUM_COLS = 32> void colmean(
// TPL-NEXT:   static_assert(COLSUM_TPB <= 1024, "ktune: COLSUM_TPB <= 1024");
// TPL-NEXT:   static const int TPB = COLSUM_TPB;
// TPL-NEXT:   static const int Cols = COLSUM_COLS;
// TPL-NEXT:   dim3 grid((d + Cols - 1) / Cols);
// TPL-NEXT:   colsum<T, TPB, Cols><<<grid, TPB>>>(out, in, d, n);

// REQUIRES: nvcc
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX
// PTX: ptx-identical: 2 function(s) identical
