// __launch_bounds__ is a macro: its arguments are found through the
// CUDALaunchBoundsAttr and rewritten where they are spelled.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %inputs/refactor/summarize.py < %t/out.json | FileCheck %s --check-prefix=MANIFEST

#define MAX_THREADS 256

// Max threads and min blocks per SM, as literals.
__global__ void __launch_bounds__(128, 4) two_args(float *x) { x[threadIdx.x] = 1.0f; }

// Through a macro: the macro use changes, not the #define.
__global__ void __launch_bounds__(MAX_THREADS) by_macro(float *x) {
  x[blockIdx.x * MAX_THREADS + threadIdx.x] = 2.0f;
}

// No bounds: nothing to rewrite there.
__global__ void no_bounds(float *x) { x[threadIdx.x] = 3.0f; }

void launch_all(float *x) {
  two_args<<<8, 128>>>(x);
  by_macro<<<8, MAX_THREADS>>>(x);
  no_bounds<<<8, 32>>>(x);
}

// CAND:      CAND block_size two_args value=128 spelling=128 high
// CAND-NEXT:   SITE 14:35 launch_bounds '128' -> {P}
// CAND-NEXT:   SITE 25:17 launch_block '128' -> {P}
// CAND-NEXT:   IMPLIES {block_size#0} <= 1024
// CAND-NEXT: CAND min_blocks two_args value=4 spelling=4 medium
// CAND-NEXT:   SITE 14:40 launch_bounds_min_blocks '4' -> {P}
// CAND-NEXT: CAND block_size by_macro value=256 spelling=MAX_THREADS high
// CAND-NEXT:   SITE 17:35 launch_bounds 'MAX_THREADS' -> {P}
// CAND-NEXT:   SITE 18:18 index_arith 'MAX_THREADS' -> {P}
// CAND-NEXT:   SITE 26:17 launch_block 'MAX_THREADS' -> {P}
// CAND-NEXT:   IMPLIES {block_size#2} <= 1024
// CAND-NEXT: CAND block_size no_bounds value=32 spelling=32 high launch-param
// CAND-NEXT:   SITE 27:18 launch_block '32' -> {P}

// The min-blocks hint (medium confidence) stays unless a plan lifts it.
// TPL:      #define MAX_THREADS 256
// TPL:      template <int BLOCK_SIZE = 128>
// TPL-NEXT: __global__ void __launch_bounds__(BLOCK_SIZE, 4) two_args(float *x) {
// TPL:      template <int BLOCK_SIZE = 256>
// TPL-NEXT: __global__ void __launch_bounds__(BLOCK_SIZE) by_macro(float *x) {
// TPL:        x[blockIdx.x * BLOCK_SIZE + threadIdx.x] = 2.0f;
// no_bounds has nothing of its block size in its code: the launch's 32 is a
// launch parameter of launch_all, the kernel stays as it is.
// TPL:      __global__ void no_bounds(float *x) { x[threadIdx.x] = 3.0f; }
// TPL:      template <int TWO_ARGS_BLOCK_SIZE = 128, int BY_MACRO_BLOCK_SIZE = 256, int NO_BOUNDS_BLOCK_SIZE = 32>
// TPL-NEXT: void launch_all(float *x) {
// TPL-NEXT:   static_assert(NO_BOUNDS_BLOCK_SIZE <= 1024, "ktune: NO_BOUNDS_BLOCK_SIZE <= 1024");
// TPL-NEXT:   two_args<TWO_ARGS_BLOCK_SIZE><<<8, TWO_ARGS_BLOCK_SIZE>>>(x);
// TPL-NEXT:   by_macro<BY_MACRO_BLOCK_SIZE><<<8, BY_MACRO_BLOCK_SIZE>>>(x);
// TPL-NEXT:   no_bounds<<<8, NO_BOUNDS_BLOCK_SIZE>>>(x);

// MANIFEST: KERNEL two_args
// MANIFEST: KERNEL by_macro
// MANIFEST: KERNEL no_bounds
// MANIFEST-NEXT: LAUNCH-PARAM NO_BOUNDS_BLOCK_SIZE int block_size default=32 launcher=launch_all
// MANIFEST: LAUNCHER launch_all returns=void kernels=['two_args', 'by_macro', 'no_bounds'] forwarder
// MANIFEST-NEXT: PARAM TWO_ARGS_BLOCK_SIZE int tunable block_size default=128
// MANIFEST-NEXT: PARAM BY_MACRO_BLOCK_SIZE int tunable block_size default=256
// MANIFEST-NEXT: PARAM NO_BOUNDS_BLOCK_SIZE int tunable block_size default=32
