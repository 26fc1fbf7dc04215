// tiled_transpose.cu - out-of-place matrix transpose through shared memory.
//
//   out[c, r] = in[r, c]
//
// Layout: in [rows, cols] row-major float, out [cols, rows] row-major float.
// Launch: 2-D grid of TILE_DIM x TILE_DIM tiles; a block of TILE_DIM x
//         BLOCK_ROWS threads loads a tile with coalesced reads, then writes
//         it transposed with coalesced writes. The +1 column of padding
//         keeps the transposed shared-memory reads free of bank conflicts.
//         Partial tiles at the right and bottom edges are bounds-checked.
// Preconditions: blockDim = (TILE_DIM, BLOCK_ROWS), TILE_DIM % BLOCK_ROWS
//         == 0, rows <= 65535 * TILE_DIM (grid.y limit).
// Tuning constants:
//   enum { TILE_DIM = 32, BLOCK_ROWS = 8 }  enumerators used by the kernel
//                                           and the grid's ceil-division
//   dim3 block(32, 8)                       the same values as literals
//   #pragma unroll                          full unroll of the row loops

#include <cuda_runtime.h>

#include <cstdint>

namespace ops {

enum TransposeTiling { TILE_DIM = 32, BLOCK_ROWS = 8 };

__global__ void tiled_transpose_kernel(float *__restrict__ out,
                                       const float *__restrict__ in,
                                       const int rows, const int cols) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];

  // Load: this thread's column of the input tile, BLOCK_ROWS rows apart.
  const int in_col = blockIdx.x * TILE_DIM + threadIdx.x;
  const int in_row = blockIdx.y * TILE_DIM + threadIdx.y;
#pragma unroll
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
    if (in_col < cols && in_row + j < rows)
      tile[threadIdx.y + j][threadIdx.x] =
          in[static_cast<int64_t>(in_row + j) * cols + in_col];
  }
  __syncthreads();

  // Store: the block's tile lands at the mirrored tile position of out.
  const int out_col = blockIdx.y * TILE_DIM + threadIdx.x; // a row of in
  const int out_row = blockIdx.x * TILE_DIM + threadIdx.y; // a column of in
#pragma unroll
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
    if (out_col < rows && out_row + j < cols)
      out[static_cast<int64_t>(out_row + j) * rows + out_col] =
          tile[threadIdx.x][threadIdx.y + j];
  }
}

/// out [cols, rows] = transpose(in [rows, cols]). Errors surface through
/// cudaGetLastError().
void launch_tiled_transpose(float *out, const float *in, int rows, int cols,
                            cudaStream_t stream) {
  if (rows == 0 || cols == 0)
    return;
  dim3 block(32, 8);
  dim3 grid((cols + TILE_DIM - 1) / TILE_DIM, (rows + TILE_DIM - 1) / TILE_DIM);
  tiled_transpose_kernel<<<grid, block, 0, stream>>>(out, in, rows, cols);
}

} // namespace ops
