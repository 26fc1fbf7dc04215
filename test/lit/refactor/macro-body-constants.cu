// A block-size cap spelled in the body of a function-like launch macro
// (vLLM's LAUNCH_ACTIVATION_KERNEL) is one edit shared by every expansion:
// it is lifted when every function expanding the macro takes the parameter
// under one name (each becomes a template keeping its symbol). Where one
// expansion is in a function that cannot become a template (variadic), or
// outside the functions launching with it, the constant is kept, with a
// note. A macro that launchers of several kernels expand serves a
// parameter of each, lifted together under one name
// (macro-body-several-kernels.cu).
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates 2> %t/cand-notes.txt | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND-NOTE < %t/cand-notes.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/notes.txt
// RUN: grep -v -e '^// [A-Z-]*:' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: FileCheck %s --check-prefix=NOTE < %t/notes.txt
// RUN: %python %inputs/refactor/summarize.py < %t/out.json | FileCheck %s --check-prefix=MANIFEST

#include <algorithm>

template <typename T>
__global__ void act_kernel(T *out, const T *in, int d) {
  for (int i = threadIdx.x; i < d; i += blockDim.x)
    out[blockIdx.x * d + i] = in[blockIdx.x * d + i] * 2;
}

#define LAUNCH_ACT(T)                                                          \
  dim3 grid(num_tokens);                                                       \
  dim3 block(std::min(d, 1024));                                               \
  act_kernel<T><<<grid, block>>>(out, in, d);

void act_float(float *out, const float *in, int d, int num_tokens) {
  LAUNCH_ACT(float)
}
void act_int(int *out, const int *in, int d, int num_tokens) {
  LAUNCH_ACT(int)
}

template <typename T>
__global__ void copy_kernel(T *out, const T *in, int d) {
  for (int i = threadIdx.x; i < d; i += blockDim.x)
    out[blockIdx.x * d + i] = in[blockIdx.x * d + i];
}

#define LAUNCH_COPY(T)                                                         \
  dim3 grid(num_tokens);                                                       \
  dim3 block(std::min(d, 512));                                                \
  copy_kernel<T><<<grid, block>>>(out, in, d);

void copy_float(float *out, const float *in, int d, int num_tokens) {
  LAUNCH_COPY(float)
}

// A cap macro also expanded where nothing is launched.
#define CAPPED(n) std::min(n, 256)
__global__ void scale_kernel(float *x, int n) {
  if (blockIdx.x * blockDim.x + threadIdx.x < n)
    x[blockIdx.x * blockDim.x + threadIdx.x] *= 2.0f;
}
void scale_float(float *x, int n) { scale_kernel<<<n, CAPPED(n)>>>(x, n); }
int capped_size(int n) { return CAPPED(n); }

// A grid macro two kernels' launches share.
#define BLOCKS_FOR(n) (((n) + 127) / 128)
__global__ void add_one(float *x, int n) {
  if (blockIdx.x * blockDim.x + threadIdx.x < n)
    x[blockIdx.x * blockDim.x + threadIdx.x] += 1.0f;
}
void add_one_all(float *x, int n) { add_one<<<BLOCKS_FOR(n), 128>>>(x, n); }
__global__ void sub_one(float *x, int n) {
  if (blockIdx.x * blockDim.x + threadIdx.x < n)
    x[blockIdx.x * blockDim.x + threadIdx.x] -= 1.0f;
}
void sub_one_all(float *x, int n) { sub_one<<<BLOCKS_FOR(n), 128>>>(x, n); }

void copy_logged(int d, int num_tokens, ...) {
  float *out = nullptr, *in = nullptr;
  LAUNCH_COPY(float)
}

// CAND:      CAND block_size act_kernel value=1024 spelling=1024 high launch-param
// CAND-NEXT:   SITE 30:26 launch_block '1024' -> {P}
// CAND-NEXT:   IMPLIES
// CAND-NOT:  CAND {{.*}} copy_kernel
// CAND-NOT:  CAND {{.*}} scale_kernel
// CAND-NOTE: macro-body-constants.cu:62:33: constants in the body of macro CAPPED are not lifted: this expansion is not in a function launching with them (every expansion shares their spelling)

// TPL:      dim3 block(std::min(d, BLOCK_SIZE));
// TPL:      template <int BLOCK_SIZE = 1024>
// TPL-NEXT: void act_float(float *out, const float *in, int d, int num_tokens) {
// TPL:      template <int BLOCK_SIZE = 1024>
// TPL-NEXT: void act_int(int *out, const int *in, int d, int num_tokens) {
// TPL:      void act_int(int *out, const int *in, int d, int num_tokens) {
// TPL-NEXT:   return act_int<1024>(out, in, d, num_tokens);
// TPL:      dim3 block(std::min(d, 512));
// TPL:      #define BLOCKS_FOR(n) (((n) + (BLOCK_SIZE - 1)) / BLOCK_SIZE)
// TPL:      template <int BLOCK_SIZE = 128>
// TPL-NEXT: void add_one_all(float *x, int n) {
// TPL:        add_one<<<BLOCKS_FOR(n), BLOCK_SIZE>>>(x, n); }
// TPL:      template <int BLOCK_SIZE = 128>
// TPL-NEXT: void sub_one_all(float *x, int n) {
// TPL:        sub_one<<<BLOCKS_FOR(n), BLOCK_SIZE>>>(x, n); }
// TPL:      void copy_logged(int d, int num_tokens, ...) {

// NOTE: constants in the body of macro LAUNCH_COPY are not lifted: it is expanded in copy_logged, which cannot become a template (it is variadic (no forwarding overload can keep its symbol)) (every expansion shares their spelling)

// MANIFEST:      KERNEL add_one
// MANIFEST-NEXT:   LAUNCH-PARAM BLOCK_SIZE int block_size default=128 launcher=add_one_all
// MANIFEST:        LAUNCH grid=['(n + (BLOCK_SIZE - 1)) / BLOCK_SIZE'] block=['BLOCK_SIZE'] smem=0
// MANIFEST:      KERNEL sub_one
// MANIFEST-NEXT:   LAUNCH-PARAM BLOCK_SIZE int block_size default=128 launcher=sub_one_all
