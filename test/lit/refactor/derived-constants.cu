// Constants defined from others: with one base (kThreads = kWarps * 32)
// the uses become the base's expression; with several, the derived one is
// tied to its bases by an implied constraint and offered with medium
// confidence only (lifting it alone would break the relation).
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %inputs/refactor/summarize.py < %t/out.json | FileCheck %s --check-prefix=MANIFEST
// RUN: ktune-refactor %s --candidates | FileCheck %s --check-prefix=WHY

constexpr int kWarps = 4;
constexpr int kThreads = kWarps * 32;

struct Groups {
  static constexpr int kPerGroup = 16;
  static constexpr int kGroups = 8;
  static constexpr int kThreadsPerBlock = kPerGroup * kGroups;
};

// One base: uses of kThreads are the base constant spelled as kWarps * 32.
__global__ void __launch_bounds__(kThreads) warps_kernel(float *x) {
  int warp = threadIdx.x / 32;
  if (warp < kWarps)
    x[blockIdx.x * kThreads + threadIdx.x] = 1.0f;
}

// Several bases: the derived constant is related to them by a constraint
// and only offered with medium confidence.
__global__ void __launch_bounds__(Groups::kThreadsPerBlock) group_kernel(float *x) {
  int g = threadIdx.x / Groups::kPerGroup;
  x[blockIdx.x * Groups::kGroups + g] += 1.0f;
}

void launch(float *x) {
  warps_kernel<<<16, kThreads>>>(x);
  group_kernel<<<16, Groups::kThreadsPerBlock>>>(x);
}

// CAND:      CAND warps_per_block warps_kernel value=4 spelling=kWarps high
// CAND-NEXT:   SITE 24:35 launch_bounds 'kThreads' -> {P} * 32
// CAND-NEXT:   SITE 26:14 other 'kWarps' -> {P}
// CAND-NEXT:   SITE 27:20 index_arith 'kThreads' -> {P} * 32
// CAND-NEXT:   SITE 38:22 launch_block 'kThreads' -> {P} * 32
// CAND-NEXT:   IMPLIES {warps_per_block#0} * 32 <= 1024
// CAND-NEXT:   IMPLIES {warps_per_block#0} * 32 % 32 == 0
// CAND-NEXT: CAND block_size group_kernel value=128 spelling=kThreadsPerBlock medium
// CAND-NEXT:   SITE 32:35 launch_bounds 'Groups::kThreadsPerBlock' -> {P}
// CAND-NEXT:   SITE 39:22 launch_block 'Groups::kThreadsPerBlock' -> {P}
// CAND-NEXT:   IMPLIES {block_size#1} <= 1024
// CAND-NEXT:   IMPLIES {block_size#1} == {other#2} * 8
// CAND-NEXT: CAND other group_kernel value=16 spelling=kPerGroup medium
// CAND-NEXT:   SITE 33:25 other 'Groups::kPerGroup' -> {P}
// CAND-NEXT:   IMPLIES {block_size#1} == {other#2} * 8
// CAND-NOT:  kGroups'

// WHY: "why": "constant kThreadsPerBlock used as {{.*}}; it is computed from other constants (see the implied constraints): lift them together or not at all"

// TPL:      constexpr int kThreads = kWarps * 32;
// TPL:      template <int WARPS_PER_BLOCK = 4>
// TPL-NEXT: __global__ void __launch_bounds__(WARPS_PER_BLOCK * 32) warps_kernel(float *x) {
// TPL:        if (warp < WARPS_PER_BLOCK)
// TPL-NEXT:     x[blockIdx.x * (WARPS_PER_BLOCK * 32) + threadIdx.x] = 1.0f;
// TPL:      __global__ void __launch_bounds__(Groups::kThreadsPerBlock) group_kernel(float *x) {
// TPL:        warps_kernel<WARPS_PER_BLOCK><<<16, (WARPS_PER_BLOCK * 32)>>>(x);
// TPL-NEXT:   group_kernel<<<16, Groups::kThreadsPerBlock>>>(x);

// MANIFEST:      KERNEL warps_kernel
// MANIFEST:        LAUNCH grid=['16'] block=['WARPS_PER_BLOCK * 32'] smem=0
// MANIFEST-NOT:  KERNEL group_kernel
