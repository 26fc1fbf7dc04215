// A namespace-scope constant whose every use is lifted (CUDA-PointPillars'
// `const int WARPS_PER_BLOCK = 4;`) is left unreferenced: nvcc warns
// (#177-D), an error under the project's -Werror=all-warnings. Its
// declaration is marked [[maybe_unused]]; a constant still read elsewhere
// gets the mark too, harmlessly.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s -o %t/out.cu -- -Werror=all-warnings
// RUN: grep -v '^#line ' %t/out.cu | FileCheck %s
// CHECK: {{\[\[maybe_unused\]\]}} const int WARPS_PER_BLOCK = 4;
// CHECK: __shared__ float partial[ROW_SUMS_WARPS_PER_BLOCK];
//
// REQUIRES: nvcc
// RUN: %nvcc -Werror=all-warnings -Xcompiler -Wall,-Wextra -c -arch=sm_90 %t/out.cu -o %t/out.o
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc -- -Werror=all-warnings | FileCheck %s --check-prefix=PTX
// PTX: ptx-identical: 1 function(s) identical

namespace lidar {
const int WARPS_PER_BLOCK = 4;

__global__ void row_sums(const float *in, float *out, int cols) {
  __shared__ float partial[WARPS_PER_BLOCK];
  int row = blockIdx.x * WARPS_PER_BLOCK + threadIdx.x / 32;
  float acc = 0.0f;
  for (int c = threadIdx.x % 32; c < cols; c += 32)
    acc += in[row * cols + c];
  for (int o = 16; o > 0; o /= 2)
    acc += __shfl_down_sync(0xffffffff, acc, o);
  if (threadIdx.x % 32 == 0)
    partial[threadIdx.x / 32] = acc;
  __syncthreads();
  if (threadIdx.x < WARPS_PER_BLOCK)
    out[blockIdx.x * WARPS_PER_BLOCK + threadIdx.x] = partial[threadIdx.x];
}

void launch_row_sums(const float *in, float *out, int rows, int cols) {
  row_sums<<<rows / WARPS_PER_BLOCK, WARPS_PER_BLOCK * 32>>>(in, out, cols);
}
} // namespace lidar
