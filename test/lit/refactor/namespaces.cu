// Kernels in namespaces (named, nested, anonymous): qualified names in the
// candidates and the manifest; a host function launching two kernels whose
// parameters share a name but not a default names them per kernel.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %inputs/refactor/summarize.py < %t/out.json | FileCheck %s --check-prefix=MANIFEST

namespace ops {
namespace detail {
__global__ void __launch_bounds__(128) inner(float *x) { x[threadIdx.x] += 1.0f; }
} // namespace detail

namespace {
__global__ void __launch_bounds__(64) hidden(float *x) { x[threadIdx.x] *= 2.0f; }
} // namespace

void run(float *x, int n) {
  detail::inner<<<n / 128, 128>>>(x);
  hidden<<<n / 64, 64>>>(x);
}
} // namespace ops

// Same name, other namespace: its own candidate.
namespace other {
__global__ void __launch_bounds__(32) inner(float *x) { x[threadIdx.x] = 0.0f; }
void run(float *x) { inner<<<1, 32>>>(x); }
} // namespace other

// CAND:      CAND block_size ops::detail::inner value=128 spelling=128 high
// CAND-NEXT:   SITE 14:35 launch_bounds '128' -> {P}
// CAND-NEXT:   SITE 22:23 launch_grid '128' -> {P}
// CAND-NEXT:   SITE 22:28 launch_block '128' -> {P}
// CAND:      CAND block_size ops::hidden value=64 spelling=64 high
// CAND-NEXT:   SITE 18:35 launch_bounds '64' -> {P}
// CAND-NEXT:   SITE 23:16 launch_grid '64' -> {P}
// CAND-NEXT:   SITE 23:20 launch_block '64' -> {P}
// CAND:      CAND block_size other::inner value=32 spelling=32 high
// CAND-NEXT:   SITE 29:35 launch_bounds '32' -> {P}
// CAND-NEXT:   SITE 30:33 launch_block '32' -> {P}

// TPL:      namespace detail {
// TPL-NEXT: template <int BLOCK_SIZE = 128>
// TPL-NEXT: __global__ void __launch_bounds__(BLOCK_SIZE) inner(float *x) {
// TPL-NEXT:   static_assert(BLOCK_SIZE <= 1024, "ktune: BLOCK_SIZE <= 1024");
// TPL-NEXT:   x[threadIdx.x] += 1.0f; }
// TPL:      namespace {
// TPL-NEXT: template <int BLOCK_SIZE = 64>
// TPL-NEXT: __global__ void __launch_bounds__(BLOCK_SIZE) hidden(float *x) {
// TPL:      template <int INNER_BLOCK_SIZE = 128, int HIDDEN_BLOCK_SIZE = 64>
// TPL-NEXT: void run(float *x, int n) {
// TPL-NEXT:   detail::inner<INNER_BLOCK_SIZE><<<n / INNER_BLOCK_SIZE, INNER_BLOCK_SIZE>>>(x);
// TPL-NEXT:   hidden<HIDDEN_BLOCK_SIZE><<<n / HIDDEN_BLOCK_SIZE, HIDDEN_BLOCK_SIZE>>>(x);
// TPL:      void run(float *x, int n) {
// TPL-NEXT:   return ::ops::run<128, 64>(x, n);
// TPL:      namespace other {
// TPL-NEXT: template <int BLOCK_SIZE = 32>
// TPL-NEXT: __global__ void __launch_bounds__(BLOCK_SIZE) inner(float *x) {
// TPL:      void run(float *x) { inner<BLOCK_SIZE><<<1, BLOCK_SIZE>>>(x); }

// Anonymous namespaces are left out of qualified names (they are reachable
// from the enclosing namespace in the same file).
// MANIFEST:      KERNEL ops::detail::inner
// MANIFEST-NEXT:   PARAM BLOCK_SIZE int tunable block_size default=128
// MANIFEST:      KERNEL ops::hidden
// MANIFEST-NEXT:   PARAM BLOCK_SIZE int tunable block_size default=64
// MANIFEST:      KERNEL other::inner
// MANIFEST-NEXT:   PARAM BLOCK_SIZE int tunable block_size default=32
// MANIFEST:        LAUNCH grid=['1'] block=['BLOCK_SIZE'] smem=0
