// A kernel whose result does not depend on its grid's x size (blockIdx.x
// and gridDim.x only start and step grid-stride loops, directly or through
// a constant local) launched with a literal grid: the grid is a launch
// parameter of kind grid_size. A kernel that indexes by blockIdx.x, or
// calls a helper that does, keeps its grid.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates 2>/dev/null | %python %inputs/refactor/summarize.py | FileCheck %s --check-prefix=CAND
// RUN: ktune-refactor %s -o %t/out.cu
// RUN: grep -v -e '^// [A-Z-]*:' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %inputs/refactor/summarize.py < %t/out.json | FileCheck %s --check-prefix=MANIFEST

// Blocks stride over vectors (the CUDA samples' scalarProd).
__global__ void dot(float *out, const float *a, const float *b, int vectors,
                    int length) {
  for (int vec = blockIdx.x; vec < vectors; vec += gridDim.x) {
    float sum = 0;
    for (int i = threadIdx.x; i < length; i += blockDim.x)
      sum += a[vec * length + i] * b[vec * length + i];
    atomicAdd(out + vec, sum);
  }
}

// Threads stride over elements, the stride in a local.
__global__ void scale(float *x, int n) {
  int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    x[i] *= 2.0f;
}

// One partial result per block: the host reads gridDim.x of them.
__global__ void partial_sums(float *partial, const float *x, int n) {
  float sum = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    sum += x[i];
  atomicAdd(partial + blockIdx.x, sum);
}

__device__ int first_index() { return blockIdx.x * blockDim.x + threadIdx.x; }
// A helper reads blockIdx.x: not followed, the grid is kept.
__global__ void fill(float *x, int n) {
  for (int i = first_index(); i < n; i += blockDim.x * gridDim.x)
    x[i] = 1.0f;
}

void run(float *out, const float *a, const float *b, float *x, float *partial,
         int n) {
  dot<<<128, 256>>>(out, a, b, 64, n / 64);
  scale<<<80, 256>>>(x, n);
  partial_sums<<<96, 256>>>(partial, x, n);
  fill<<<48, 256>>>(x, n);
}

// CAND:     CAND grid_size dot value=128 spelling=128 high launch-param
// CAND-NEXT:  SITE 49:9 launch_grid '128' -> {P}
// CAND:     CAND grid_size scale value=80 spelling=80 high launch-param
// CAND-NEXT:  SITE 50:11 launch_grid '80' -> {P}
// CAND-NOT: CAND grid_size partial_sums
// CAND-NOT: CAND grid_size fill

// TPL:      template <int DOT_GRID_SIZE = 128, int BLOCK_SIZE = 256, int SCALE_GRID_SIZE = 80>
// TPL-NEXT: void run(
// TPL:        dot<<<DOT_GRID_SIZE, BLOCK_SIZE>>>(out, a, b, 64, n / 64);
// TPL-NEXT:   scale<<<SCALE_GRID_SIZE, BLOCK_SIZE>>>(x, n);
// TPL-NEXT:   partial_sums<<<96, BLOCK_SIZE>>>(partial, x, n);
// TPL-NEXT:   fill<<<48, BLOCK_SIZE>>>(x, n);

// MANIFEST:      KERNEL dot
// MANIFEST-NEXT:   LAUNCH-PARAM DOT_GRID_SIZE int grid_size default=128 launcher=run
// MANIFEST:        LAUNCH grid=['DOT_GRID_SIZE'] block=['BLOCK_SIZE'] smem=0
// MANIFEST:      KERNEL partial_sums
// MANIFEST-NOT:    grid_size
// MANIFEST:        LAUNCH grid=['96']
// MANIFEST:      LAUNCHER run
// MANIFEST:        PARAM DOT_GRID_SIZE int tunable grid_size default=128 domain=[16,32,64,128,256,512,1024,2048,4096,8192]
