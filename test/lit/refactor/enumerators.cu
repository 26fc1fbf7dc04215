// Enumerators of unscoped enums are named constants; scoped enums are not
// integers and are left alone; the warp width is never a knob.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %inputs/refactor/summarize.py < %t/out.json | FileCheck %s --check-prefix=MANIFEST

enum { kWarpsPerBlock = 4, kThreadsPerWarp = 32 };
enum Tiling { TILE_ROWS = 8 };
enum class Mode { Fast = 2 };

__global__ void enum_kernel(float *x) {
  __shared__ float rows[TILE_ROWS][kThreadsPerWarp];
  int warp = threadIdx.x / kThreadsPerWarp;
  int lane = threadIdx.x % kThreadsPerWarp;
  rows[warp % TILE_ROWS][lane] = x[threadIdx.x];
  __syncwarp();
  x[threadIdx.x] = rows[(warp + 1) % TILE_ROWS][lane] * static_cast<int>(Mode::Fast);
}

void launch(float *x) { enum_kernel<<<1, kWarpsPerBlock * kThreadsPerWarp>>>(x); }

// CAND:      CAND tile_size enum_kernel value=8 spelling=TILE_ROWS high
// CAND-NEXT:   SITE 16:25 shared_extent 'TILE_ROWS' -> {P}
// CAND-NEXT:   SITE 19:15 other 'TILE_ROWS' -> {P}
// CAND-NEXT:   SITE 21:38 other 'TILE_ROWS' -> {P}
// CAND-NEXT:   IMPLIES 4 * {tile_size#0} * 32 <= 49152
// CAND-NEXT: CAND warps_per_block enum_kernel value=4 spelling=kWarpsPerBlock high launch-param
// CAND-NEXT:   SITE 24:42 launch_block 'kWarpsPerBlock' -> {P}
// CAND-NEXT:   IMPLIES {warps_per_block#1} * 32 <= 1024
// CAND-NEXT:   IMPLIES {warps_per_block#1} * 32 % 32 == 0
// CAND-NOT: kThreadsPerWarp
// CAND-NOT: Fast

// TPL:      enum { kWarpsPerBlock = 4, kThreadsPerWarp = 32 };
// The warp count is only at the launch: a launch parameter of launch().
// TPL:      template <int TILE = 8>
// TPL-NEXT: __global__ void enum_kernel(float *x) {
// TPL:        __shared__ float rows[TILE][kThreadsPerWarp];
// TPL:        rows[warp % TILE][lane] = x[threadIdx.x];
// TPL:        x[threadIdx.x] = rows[(warp + 1) % TILE][lane] * static_cast<int>(Mode::Fast);
// TPL:      template <int TILE = 8, int WARPS_PER_BLOCK = 4>
// TPL-NEXT: void launch(float *x) {
// TPL:        enum_kernel<TILE><<<1, WARPS_PER_BLOCK * kThreadsPerWarp>>>(x); }

// MANIFEST: LAUNCH grid=['1'] block=['WARPS_PER_BLOCK * 32'] smem=0
