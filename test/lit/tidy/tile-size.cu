// ktune-tile-size: a __shared__ tile with +1 padding (the 33 becomes
// TILE_SIZE + 1), the loops over it and the launch geometry.
// REQUIRES: clang-tidy, cuda-headers
// RUN: %check_ktune_tidy %s ktune-tile-size %t

__global__ void transpose32(float *out, const float *in, int n) {
  __shared__ float tile[32][33];
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

void launch(float *out, const float *in, int n) {
  transpose32<<<dim3(n / 32, n / 32), dim3(32, 8)>>>(out, in, n);
}

// CHECK-MESSAGES: .cu:7:25: warning: hardcoded tile size 32 in kernel 'transpose32' (11 sites); lift it to a template parameter [ktune-tile-size]
// CHECK-MESSAGES: .cu:7:29: note: '33' here changes with it (__shared__ array extent)
// CHECK-MESSAGES: .cu:10:23: note: '32' here changes with it (loop bound)
// CHECK-MESSAGES: .cu:20:44: note: '32' here changes with it (launch block dimension)
// CHECK-MESSAGES: .cu:7:25: note: fix lifts it to template parameter 'TILE' = 32
// CHECK-FIXES: template <int TILE = 32>
// CHECK-FIXES: __shared__ float tile[TILE][TILE + 1];
// CHECK-FIXES: int x = blockIdx.x * TILE + threadIdx.x;
// CHECK-FIXES: for (int j = 0; j < TILE; j += 8)
// CHECK-FIXES: transpose32<TILE><<<dim3(n / TILE, n / TILE), dim3(TILE, 8)>>>(out, in, n);
