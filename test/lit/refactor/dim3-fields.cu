// A block set field by field (`dim3 threads; threads.x = N;`) before the
// launch, in the launching function itself: its fields are the geometry,
// and the constant is a block size. Set in both branches of an `if`, the
// field is `cond ? a : b` and each branch's constant is a block size.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %inputs/refactor/summarize.py < %t/out.json | FileCheck %s --check-prefix=MANIFEST

#define NUMBER_THREADS 128

__global__ void boxes_kernel(float *x, int per_box) {
  int wtx = threadIdx.x;
  while (wtx < per_box) {
    x[blockIdx.x * per_box + wtx] *= 2.0f;
    wtx = wtx + NUMBER_THREADS;
  }
}

__global__ void other_kernel(float *x) { x[blockIdx.x * blockDim.x + threadIdx.x] = 0.0f; }

void launch(float *x, int boxes, int per_box, int n) {
  dim3 threads;
  dim3 blocks;
  blocks.x = boxes;
  blocks.y = 1;
  threads.x = NUMBER_THREADS;
  threads.y = 1;
  boxes_kernel<<<blocks, threads>>>(x, per_box);

  dim3 branchy;
  if (n > 1000)
    branchy.x = 256;
  else
    branchy.x = 64;
  other_kernel<<<n / 64, branchy>>>(x);
}

// CAND:      CAND block_size boxes_kernel value=128 spelling=NUMBER_THREADS high
// CAND-NEXT:   SITE 19:17 other 'NUMBER_THREADS' -> {P}
// CAND-NEXT:   SITE 30:15 launch_block 'NUMBER_THREADS' -> {P}
// CAND-NEXT:   IMPLIES {block_size#0} * 1 <= 1024
// CAND:      CAND block_size other_kernel value=256 spelling=256 high launch-param
// CAND-NEXT:   SITE 36:17 launch_block '256' -> {P}
// CAND:      CAND block_size other_kernel value=64 spelling=64 high launch-param
// CAND-NEXT:   SITE 38:17 launch_block '64' -> {P}

// TPL:        template <int BLOCK_SIZE = 128>
// TPL-NEXT:   __global__ void boxes_kernel(float *x, int per_box) {
// TPL:        wtx = wtx + BLOCK_SIZE;
// TPL:        template <int BOXES_KERNEL_BLOCK_SIZE = 128, int OTHER_KERNEL_BLOCK_SIZE = 256, int BLOCK_SIZE_2 = 64>
// TPL-NEXT:   void launch(float *x, int boxes, int per_box, int n) {
// TPL:        threads.x = BOXES_KERNEL_BLOCK_SIZE;
// TPL:        boxes_kernel<BOXES_KERNEL_BLOCK_SIZE><<<blocks, threads>>>(x, per_box);
// TPL:        if (n > 1000)
// TPL-NEXT:     branchy.x = OTHER_KERNEL_BLOCK_SIZE;
// TPL-NEXT:   else
// TPL-NEXT:     branchy.x = BLOCK_SIZE_2;

// MANIFEST:      KERNEL boxes_kernel
// MANIFEST:        LAUNCH grid=['boxes', '1'] block=['BLOCK_SIZE', '1'] smem=0
// MANIFEST:      KERNEL other_kernel
// MANIFEST:        LAUNCH grid=['n / BLOCK_SIZE_2'] block=['n > 1000 ? OTHER_KERNEL_BLOCK_SIZE : BLOCK_SIZE_2'] smem=0
