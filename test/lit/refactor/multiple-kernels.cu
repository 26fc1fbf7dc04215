// Several kernels per file: each has its own candidates and parameters; a
// host function launching two kernels with the same macro gets one shared
// parameter (same name, same default).
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %inputs/refactor/summarize.py < %t/out.json | FileCheck %s --check-prefix=MANIFEST

#define BLOCK 256

__global__ void scale(float *x, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}

__global__ void shift(float *x, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}

__global__ void clear(float *x, int n) {
#pragma unroll 4
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    x[i] = 0.0f;
}

// One host function launching two kernels with the same macro.
void pipeline(float *x, int n) {
  scale<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(x, n);
  shift<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(x, n);
}

void reset(float *x, int n) { clear<<<1, 512>>>(x, n); }

// CAND:      CAND block_size scale value=256 spelling=BLOCK high
// CAND-NEXT:   SITE 15:24 index_arith 'BLOCK' -> {P}
// CAND-NEXT:   SITE 32:16 launch_grid 'BLOCK' -> {P}
// CAND-NEXT:   SITE 32:29 launch_grid 'BLOCK' -> {P}
// CAND-NEXT:   SITE 32:36 launch_block 'BLOCK' -> {P}
// CAND-NEXT:   IMPLIES {block_size#0} <= 1024
// CAND-NEXT: CAND block_size shift value=256 spelling=BLOCK high
// CAND-NEXT:   SITE 20:24 index_arith 'BLOCK' -> {P}
// CAND-NEXT:   SITE 33:16 launch_grid 'BLOCK' -> {P}
// CAND-NEXT:   SITE 33:29 launch_grid 'BLOCK' -> {P}
// CAND-NEXT:   SITE 33:36 launch_block 'BLOCK' -> {P}
// CAND-NEXT:   IMPLIES {block_size#1} <= 1024
// CAND-NEXT: CAND unroll clear value=4 spelling=4 high
// CAND-NEXT:   SITE 25:16 unroll_pragma '4' -> {P}
// CAND-NEXT:   IMPLIES {unroll#2} >= 1
// CAND-NEXT: CAND block_size clear value=512 spelling=512 high launch-param
// CAND-NEXT:   SITE 36:42 launch_block '512' -> {P}

// TPL:      template <int BLOCK_SIZE = 256>
// TPL-NEXT: __global__ void scale(float *x, int n) {
// TPL:      template <int BLOCK_SIZE = 256>
// TPL-NEXT: __global__ void shift(float *x, int n) {
// clear's block size is chosen by reset() alone: a launch parameter.
// TPL:      template <int UNROLL = 4>
// TPL-NEXT: __global__ void clear(float *x, int n) {
// TPL:      #pragma unroll UNROLL
// TPL:      template <int BLOCK_SIZE = 256>
// TPL-NEXT: void pipeline(float *x, int n) {
// TPL-NEXT:   scale<BLOCK_SIZE><<<(n + BLOCK_SIZE - 1) / BLOCK_SIZE, BLOCK_SIZE>>>(x, n);
// TPL-NEXT:   shift<BLOCK_SIZE><<<(n + BLOCK_SIZE - 1) / BLOCK_SIZE, BLOCK_SIZE>>>(x, n);
// TPL:      template <int UNROLL = 4, int BLOCK_SIZE = 512>
// TPL-NEXT: void reset(float *x, int n) {
// TPL-NEXT:   static_assert(BLOCK_SIZE <= 1024, "ktune: BLOCK_SIZE <= 1024");
// TPL-NEXT:   clear<UNROLL><<<1, BLOCK_SIZE>>>(x, n); }

// MANIFEST:      KERNEL scale
// MANIFEST:        LAUNCH grid=['(n + BLOCK_SIZE - 1) / BLOCK_SIZE'] block=['BLOCK_SIZE'] smem=0
// MANIFEST:      KERNEL shift
// MANIFEST:        LAUNCH grid=['(n + BLOCK_SIZE - 1) / BLOCK_SIZE'] block=['BLOCK_SIZE'] smem=0
// MANIFEST:      KERNEL clear
// MANIFEST-NEXT:   PARAM UNROLL int tunable unroll default=4
// MANIFEST-NEXT:   LAUNCH-PARAM BLOCK_SIZE int block_size default=512 launcher=reset
// MANIFEST:        LAUNCH grid=['1'] block=['BLOCK_SIZE'] smem=0
