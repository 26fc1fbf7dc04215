// Derived launch expressions stay derived: in (n + 255) / 256 the 255 is
// "{P} - 1"; dim3 locals and function-like macros are read through; the
// manifest gets the geometry in kernel argument names, or none.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %inputs/refactor/summarize.py < %t/out.json | FileCheck %s --check-prefix=MANIFEST

#include <algorithm>

#define DIV_UP(a, b) (((a) + (b) - 1) / (b))

__global__ void add2d(float *x, int nx, int ny) {
  int i = blockIdx.x * 16 + threadIdx.x;
  int j = blockIdx.y * 16 + threadIdx.y;
  if (i < nx && j < ny)
    x[j * nx + i] += 1.0f;
}

__global__ void scale(float *x, int n, float a) {
  int i = blockIdx.x * 128 + threadIdx.x;
  if (i < n)
    x[i] *= a;
}

__global__ void smem_kernel(float *x, int n) {
  extern __shared__ float buf[];
  buf[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  x[threadIdx.x] = buf[(threadIdx.x + 1) % blockDim.x];
}

void launch(float *x, int nx, int ny, float a, int count) {
  // Two-dimensional grid derived from a two-dimensional block.
  dim3 block(16, 16);
  dim3 grid((nx + 15) / 16, (ny + 15) / 16);
  add2d<<<grid, block>>>(x, nx, ny);
  // A function-like macro around the block size.
  int n = nx * ny;
  scale<<<DIV_UP(n, 128), 128>>>(x, n, a);
  // Dynamic shared memory from the block size.
  smem_kernel<<<1, 64, 64 * sizeof(float)>>>(x, 64);
  // The grid depends on count, which the kernel does not see.
  scale<<<count, 128>>>(x, n, a);
}

// CAND:      CAND block_size add2d value=16 spelling=16 high
// CAND-NEXT:   SITE 17:24 index_arith '16' -> {P}
// CAND-NEXT:   SITE 18:24 index_arith '16' -> {P}
// CAND-NEXT:   SITE 38:14 launch_block '16' -> {P}
// CAND-NEXT:   SITE 38:18 launch_block '16' -> {P}
// CAND-NEXT:   SITE 39:19 launch_grid '15' -> {P} - 1
// CAND-NEXT:   SITE 39:25 launch_grid '16' -> {P}
// CAND-NEXT:   SITE 39:35 launch_grid '15' -> {P} - 1
// CAND-NEXT:   SITE 39:41 launch_grid '16' -> {P}
// CAND-NEXT:   IMPLIES {block_size#0} * {block_size#0} <= 1024
// CAND-NEXT:   IMPLIES {block_size#0} <= 1024
// CAND-NEXT: CAND block_size scale value=128 spelling=128 high
// CAND-NEXT:   SITE 24:24 index_arith '128' -> {P}
// CAND-NEXT:   SITE 43:21 launch_grid '128' -> {P}
// CAND-NEXT:   SITE 43:27 launch_block '128' -> {P}
// CAND-NEXT:   SITE 47:18 launch_block '128' -> {P}
// CAND-NEXT:   IMPLIES {block_size#1} <= 1024
// CAND-NEXT: CAND block_size smem_kernel value=64 spelling=64 high launch-param
// CAND-NEXT:   SITE 45:20 launch_block '64' -> {P}
// CAND-NEXT:   SITE 45:24 launch_smem '64' -> {P}
// CAND-NEXT:   IMPLIES {block_size#2} <= 1024
// The launch's kernel argument 64 is an argument, not a site.
// CAND-NOT:  SITE 45:{{[0-9]+}} {{.*}} '64' -> {P}{{$}}

// TPL:      #define DIV_UP(a, b) (((a) + (b) - 1) / (b))
// TPL:        dim3 block(ADD2D_BLOCK_SIZE, ADD2D_BLOCK_SIZE);
// TPL-NEXT:   dim3 grid((nx + (ADD2D_BLOCK_SIZE - 1)) / ADD2D_BLOCK_SIZE, (ny + (ADD2D_BLOCK_SIZE - 1)) / ADD2D_BLOCK_SIZE);
// TPL-NEXT:   add2d<ADD2D_BLOCK_SIZE><<<grid, block>>>(x, nx, ny);
// TPL:        scale<SCALE_BLOCK_SIZE><<<DIV_UP(n, SCALE_BLOCK_SIZE), SCALE_BLOCK_SIZE>>>(x, n, a);
// smem_kernel reads blockDim: its block (and dynamic shared memory) is a
// launch parameter of launch(), the kernel stays.
// TPL:        smem_kernel<<<1, SMEM_KERNEL_BLOCK_SIZE, SMEM_KERNEL_BLOCK_SIZE * sizeof(float)>>>(x, 64);
// TPL:        scale<SCALE_BLOCK_SIZE><<<count, SCALE_BLOCK_SIZE>>>(x, n, a);

// MANIFEST:      KERNEL add2d
// MANIFEST:        LAUNCH grid=['(nx + (BLOCK_SIZE - 1)) / BLOCK_SIZE', '(ny + (BLOCK_SIZE - 1)) / BLOCK_SIZE'] block=['BLOCK_SIZE', 'BLOCK_SIZE'] smem=0 from={{.*}}grid-expressions.cu:40
// The first launch of scale that can be expressed; `n` is the kernel's n.
// MANIFEST:      KERNEL scale
// MANIFEST:        LAUNCH grid=['(n + BLOCK_SIZE - 1) / BLOCK_SIZE'] block=['BLOCK_SIZE'] smem=0 from={{.*}}grid-expressions.cu:43
// MANIFEST:      KERNEL smem_kernel
// MANIFEST-NEXT:   LAUNCH-PARAM SMEM_KERNEL_BLOCK_SIZE int block_size default=64 launcher=launch
// MANIFEST:        LAUNCH grid=['1'] block=['SMEM_KERNEL_BLOCK_SIZE'] smem=SMEM_KERNEL_BLOCK_SIZE * 4 from={{.*}}grid-expressions.cu:45
