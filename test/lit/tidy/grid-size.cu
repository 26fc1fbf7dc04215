// ktune-grid-size: the literal grid of a grid-stride kernel (blocks stride
// over rows), which computes the same for any grid size.
// REQUIRES: clang-tidy, cuda-headers
// RUN: %check_ktune_tidy %s ktune-grid-size %t

__global__ void row_sums(const float *in, float *out, int rows, int cols) {
  for (int row = blockIdx.x; row < rows; row += gridDim.x) {
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
      s += in[row * cols + c];
    atomicAdd(out + row, s);
  }
}

void launch(const float *in, float *out, int rows, int cols) {
  row_sums<<<264, 128>>>(in, out, rows, cols);
}

// CHECK-MESSAGES: .cu:16:14: warning: hardcoded grid size 264 in kernel 'row_sums' (1 site); lift it to a template parameter [ktune-grid-size]
// CHECK-MESSAGES: .cu:16:14: note: fix lifts it to template parameter 'GRID_SIZE' = 264
// CHECK-FIXES: template <int GRID_SIZE = 264>
// CHECK-FIXES: row_sums<<<GRID_SIZE, 128>>>(in, out, rows, cols);
