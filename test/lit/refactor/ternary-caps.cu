// A cap written as a comparison (`a < C ? a : C`), in a local declared
// without a value and assigned once: the bound is the knob, its two
// spellings change together. Assigned in both branches of an `if`, each
// value is a block size of its own; assigned from itself, nothing is lifted.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %inputs/refactor/summarize.py < %t/out.json | FileCheck %s --check-prefix=MANIFEST

__global__ void scale_kernel(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= 2.0f;
}

__global__ void shift_kernel(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] += 1.0f;
}

void launch(float *x, int n, int order) {
  int threads;
  threads = order < 512 ? order : 512;
  scale_kernel<<<(n + threads - 1) / threads, threads>>>(x, n);
}

void launch_branches(float *x, int n, int order) {
  int threads;
  if (order > 100)
    threads = 256;
  else
    threads = 128;
  shift_kernel<<<(n + threads - 1) / threads, threads>>>(x, n);
  int twice;
  twice = 64;
  twice = order > twice ? twice : order;
  shift_kernel<<<(n + twice - 1) / twice, twice>>>(x, n);
}

// CAND:      CAND block_size scale_kernel value=512 spelling=512 high launch-param
// CAND-NEXT:   SITE 27:21 launch_block '512' -> {P}
// CAND-NEXT:   SITE 27:35 launch_block '512' -> {P}
// CAND-NEXT:   IMPLIES {block_size#0} <= 1024
// CAND-NEXT: CAND block_size shift_kernel value=256 spelling=256 high launch-param
// CAND-NEXT:   SITE 34:15 launch_block '256' -> {P}
// CAND-NEXT:   IMPLIES
// CAND-NEXT: CAND block_size shift_kernel value=128 spelling=128 high launch-param
// CAND-NEXT:   SITE 36:15 launch_block '128' -> {P}
// CAND-NEXT:   IMPLIES
// CAND-NOT:  CAND

// TPL:        template <int BLOCK_SIZE = 512>
// TPL-NEXT:   void launch(float *x, int n, int order) {
// TPL:        threads = order < BLOCK_SIZE ? order : BLOCK_SIZE;
// TPL:        void launch_branches(float *x, int n, int order) {
// TPL:        int threads;
// TPL-NEXT:   if (order > 100)
// TPL-NEXT:   threads = BLOCK_SIZE;
// TPL-NEXT:   else
// TPL-NEXT:   threads = BLOCK_SIZE_2;
// TPL:        twice = 64;
// TPL-NEXT:   twice = order > twice ? twice : order;

// MANIFEST:      KERNEL scale_kernel
// MANIFEST-NEXT:   LAUNCH-PARAM BLOCK_SIZE int block_size default=512 launcher=launch
// MANIFEST:        LAUNCH grid=['(n + min(order, BLOCK_SIZE) - 1) / min(order, BLOCK_SIZE)'] block=['min(order, BLOCK_SIZE)'] smem=0
// MANIFEST:      KERNEL shift_kernel
// MANIFEST:        LAUNCH grid=['(n + (order > 100 ? BLOCK_SIZE : BLOCK_SIZE_2) - 1) / (order > 100 ? BLOCK_SIZE : BLOCK_SIZE_2)'] block=['order > 100 ? BLOCK_SIZE : BLOCK_SIZE_2'] smem=0
