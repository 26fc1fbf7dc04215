// Written for the evaluation harness test: a tile size that is found and an
// unroll-like constant that ktune cannot see (a runtime argument).
#ifndef TILE
#define TILE 8
#endif

__global__ void copy_tiles(float *out, const float *in, int n, int steps) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int s = 0; s < steps; ++s)
    if (x < n && y < n) {
      tile[threadIdx.y][threadIdx.x] = in[y * n + x];
      __syncthreads();
      out[y * n + x] = tile[threadIdx.y][threadIdx.x];
    }
}

void launch_tiles(float *out, const float *in, int n) {
  dim3 block(TILE, TILE);
  dim3 grid((n + TILE - 1) / TILE, (n + TILE - 1) / TILE);
  copy_tiles<<<grid, block>>>(out, in, n, 4);
}
