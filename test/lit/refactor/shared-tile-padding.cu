// __shared__ tiles: tile[32][33] is TILE and TILE + 1 (the 33 site is
// replaced by "{P} + 1"); loops over the tile and the launch follow; the
// static shared memory gives an implied constraint.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %inputs/refactor/summarize.py < %t/out.json | FileCheck %s --check-prefix=MANIFEST

#define TILE 16

// Literal tile with +1 padding: one candidate, the 33 is TILE + 1.
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

// Named tile: its padding stays an expression of the name.
__global__ void copy_tile(float *out, const float *in, int n) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * n + x];
  __syncthreads();
  out[y * n + x] = tile[threadIdx.y][threadIdx.x];
}

void launch(float *out, const float *in, int n) {
  transpose32<<<dim3(n / 32, n / 32), dim3(32, 8)>>>(out, in, n);
  copy_tile<<<dim3(n / TILE, n / TILE), dim3(TILE, TILE)>>>(out, in, n);
}

// CAND:      CAND tile_size transpose32 value=32 spelling=32 high
// CAND-NEXT:   SITE 16:25 shared_extent '32' -> {P}
// CAND-NEXT:   SITE 16:29 shared_extent '33' -> {P} + 1
// CAND-NEXT:   SITE 17:24 index_arith '32' -> {P}
// CAND-NEXT:   SITE 18:24 index_arith '32' -> {P}
// CAND-NEXT:   SITE 19:23 loop_bound '32' -> {P}
// CAND-NEXT:   SITE 22:20 index_arith '32' -> {P}
// CAND-NEXT:   SITE 23:20 index_arith '32' -> {P}
// CAND-NEXT:   SITE 24:23 loop_bound '32' -> {P}
// CAND-NEXT:   SITE 39:26 launch_grid '32' -> {P}
// CAND-NEXT:   SITE 39:34 launch_grid '32' -> {P}
// CAND-NEXT:   SITE 39:44 launch_block '32' -> {P}
// CAND-NEXT:   IMPLIES {tile_size#0} * {block_size#1} <= 1024
// CAND-NEXT:   IMPLIES 4 * {tile_size#0} * ({tile_size#0} + 1) <= 49152
// CAND-NEXT: CAND block_size transpose32 value=8 spelling=8 high
// CAND-NEXT:   SITE 19:32 loop_stride '8' -> {P}
// CAND-NEXT:   SITE 24:32 loop_stride '8' -> {P}
// CAND-NEXT:   SITE 39:48 launch_block '8' -> {P}
// CAND-NEXT:   IMPLIES {tile_size#0} * {block_size#1} <= 1024
// CAND-NEXT:   IMPLIES {block_size#1} <= 1024
// CAND-NEXT: CAND tile_size copy_tile value=16 spelling=TILE high
// CAND-NEXT:   SITE 30:25 shared_extent 'TILE' -> {P}
// CAND-NEXT:   SITE 30:31 shared_extent 'TILE' -> {P}
// CAND-NEXT:   SITE 31:24 index_arith 'TILE' -> {P}
// CAND-NEXT:   SITE 32:24 index_arith 'TILE' -> {P}
// CAND-NEXT:   SITE 40:24 launch_grid 'TILE' -> {P}
// CAND-NEXT:   SITE 40:34 launch_grid 'TILE' -> {P}
// CAND-NEXT:   SITE 40:46 launch_block 'TILE' -> {P}
// CAND-NEXT:   SITE 40:52 launch_block 'TILE' -> {P}
// CAND-NEXT:   IMPLIES {tile_size#2} * {tile_size#2} <= 1024
// CAND-NEXT:   IMPLIES 4 * {tile_size#2} * ({tile_size#2} + 1) <= 49152

// TPL:      #define TILE 16
// TPL:      template <int TRANSPOSE32_TILE = 32, int BLOCK_SIZE = 8>
// TPL-NEXT: __global__ void transpose32(float *out, const float *in, int n) {
// TPL:        static_assert(((4 * TRANSPOSE32_TILE) * (TRANSPOSE32_TILE + 1)) <= 49152, "ktune: 4 * TRANSPOSE32_TILE * (TRANSPOSE32_TILE + 1) <= 49152");
// TPL-NEXT:   __shared__ float tile[TRANSPOSE32_TILE][TRANSPOSE32_TILE + 1];
// TPL-NEXT:   int x = blockIdx.x * TRANSPOSE32_TILE + threadIdx.x;
// TPL-NEXT:   int y = blockIdx.y * TRANSPOSE32_TILE + threadIdx.y;
// TPL-NEXT:   for (int j = 0; j < TRANSPOSE32_TILE; j += BLOCK_SIZE)
// TPL:        for (int j = 0; j < TRANSPOSE32_TILE; j += BLOCK_SIZE)
// TPL:      template <int COPY_TILE_TILE = 16>
// TPL-NEXT: __global__ void copy_tile(float *out, const float *in, int n) {
// TPL:        __shared__ float tile[COPY_TILE_TILE][COPY_TILE_TILE + 1];
// TPL:        transpose32<TRANSPOSE32_TILE, BLOCK_SIZE><<<dim3(n / TRANSPOSE32_TILE, n / TRANSPOSE32_TILE), dim3(TRANSPOSE32_TILE, BLOCK_SIZE)>>>(out, in, n);
// TPL-NEXT:   copy_tile<COPY_TILE_TILE><<<dim3(n / COPY_TILE_TILE, n / COPY_TILE_TILE), dim3(COPY_TILE_TILE, COPY_TILE_TILE)>>>(out, in, n);

// MANIFEST:      KERNEL transpose32
// MANIFEST-NEXT:   PARAM TRANSPOSE32_TILE int tunable tile_size default=32
// MANIFEST-NEXT:   PARAM BLOCK_SIZE int tunable block_size default=8
// MANIFEST:        CONSTRAINT 4 * TRANSPOSE32_TILE * (TRANSPOSE32_TILE + 1) <= 49152
// MANIFEST:        LAUNCH grid=['n / TRANSPOSE32_TILE', 'n / TRANSPOSE32_TILE'] block=['TRANSPOSE32_TILE', 'BLOCK_SIZE'] smem=0
// MANIFEST:      KERNEL copy_tile
// MANIFEST:        LAUNCH grid=['n / COPY_TILE_TILE', 'n / COPY_TILE_TILE'] block=['COPY_TILE_TILE', 'COPY_TILE_TILE'] smem=0
