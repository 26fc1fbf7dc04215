// A launch spelled in a function-like macro (SGLang's
// LAUNCH_MERGE_ATTN_STATES(scalar_t, NUM_THREADS)): what reaches it through
// the macro's arguments and the locals of the function that expands it is
// lifted there, so the launch stays consistent: NUM_THREADS, a constant of
// the launcher passed as the kernel's template argument, sets the kernel's
// own parameter and keeps its type (uint). A kernel that would need new
// template arguments written inside the macro's body cannot get them: its
// launcher keeps the default configuration, with a note.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: FileCheck %s --check-prefix=NOTE < %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %inputs/refactor/summarize.py < %t/out.json | FileCheck %s --check-prefix=MANIFEST

typedef unsigned int uint;

template <typename scalar_t, const uint NUM_THREADS>
__global__ void merge(scalar_t *out, const scalar_t *a, const scalar_t *b,
                      const uint n) {
  const uint i = blockIdx.x * NUM_THREADS + threadIdx.x;
  if (i < n)
    out[i] = a[i] + b[i];
}

#define LAUNCH_MERGE(scalar_t, NUM_THREADS)                                    \
  {                                                                            \
    merge<scalar_t, NUM_THREADS><<<grid, block>>>(out, a, b, n);               \
  }

template <typename scalar_t>
void merge_launcher(scalar_t *out, const scalar_t *a, const scalar_t *b,
                    const uint n) {
  constexpr uint NUM_THREADS = 128;
  dim3 block(NUM_THREADS);
  dim3 grid((n + NUM_THREADS - 1) / NUM_THREADS);
  LAUNCH_MERGE(scalar_t, NUM_THREADS);
}

template void merge_launcher<float>(float *, const float *, const float *,
                                    const uint);

__global__ void __launch_bounds__(64) clear(float *x) { x[threadIdx.x] = 0; }

#define LAUNCH_CLEAR(B) clear<<<1, B>>>(x)

void clear_all(float *x) { LAUNCH_CLEAR(64); }

// CAND:      CAND block_size merge value=128 spelling=NUM_THREADS high type=uint
// CAND-NEXT:   SITE 36:32 definition '128' -> {P}
// CAND:      CAND block_size clear value=64 spelling=64 high{{$}}
// CAND-NEXT:   SITE 45:35 launch_bounds '64' -> {P}
// CAND-NEXT:   SITE 49:41 launch_block '64' -> {P}

// NOTE: launch-macro-arguments.cu:49: the launch of clear in clear_all keeps the default configuration: it is spelled in the body of macro LAUNCH_CLEAR, where template arguments cannot be added

// The kernel's NUM_THREADS is set by the launcher's constant: the launcher
// gets the parameter, with the constant's type; the macro is unchanged.
// TPL:      template <typename scalar_t, const uint NUM_THREADS>
// TPL-NEXT: __global__ void merge(
// TPL:        static_assert(NUM_THREADS <= 1024, "ktune: NUM_THREADS <= 1024");
// TPL:      #define LAUNCH_MERGE(scalar_t, NUM_THREADS)
// TPL-NEXT:   {
// TPL-NEXT:     merge<scalar_t, NUM_THREADS><<<grid, block>>>(out, a, b, n);
// TPL:      template <typename scalar_t, uint BLOCK_SIZE = 128>
// TPL-NEXT: void merge_launcher(
// TPL:        constexpr uint NUM_THREADS = BLOCK_SIZE;
// TPL-NEXT:   dim3 block(NUM_THREADS);
// TPL-NEXT:   dim3 grid((n + NUM_THREADS - 1) / NUM_THREADS);
// TPL-NEXT:   LAUNCH_MERGE(scalar_t, NUM_THREADS);
// TPL:      template <int BLOCK_SIZE = 64>
// TPL-NEXT: __global__ void __launch_bounds__(BLOCK_SIZE) clear(float *x) {
// TPL:      #define LAUNCH_CLEAR(B) clear<<<1, B>>>(x)
// TPL:      void clear_all(float *x) { LAUNCH_CLEAR(64); }

// MANIFEST:      KERNEL merge
// MANIFEST-NEXT:   PARAM scalar_t typename
// MANIFEST-NEXT:   PARAM NUM_THREADS uint tunable block_size default=128
// MANIFEST:        LAUNCH grid=['(n + NUM_THREADS - 1) / NUM_THREADS'] block=['NUM_THREADS'] smem=0
// MANIFEST:      LAUNCHER merge_launcher returns=void kernels=['merge']{{$}}
// MANIFEST-NEXT:   PARAM scalar_t typename
// MANIFEST-NEXT:   PARAM BLOCK_SIZE uint tunable block_size default=128
// MANIFEST-NOT:  LAUNCHER clear_all
