// Kernels that are templates already: parameters are appended; launches
// spell the arguments that were deduced (from the specialisation, or from
// the argument types in a template); launch template arguments that are
// tuning constants set the kernel's own parameter.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %inputs/refactor/summarize.py < %t/out.json | FileCheck %s --check-prefix=MANIFEST

template <typename T>
__global__ void copy_kernel(T *out, const T *in, int n) {
  for (int i = blockIdx.x * 256 + threadIdx.x; i < n; i += 256 * gridDim.x)
    out[i] = in[i];
}

template <typename T, int VEC>
__global__ void fill_kernel(T *out, T v, int n) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * VEC;
#pragma unroll
  for (int k = 0; k < VEC; ++k)
    if (i + k < n) out[i + k] = v;
}

// Deduced at a non-dependent launch.
void copy_floats(float *out, const float *in, int n) {
  copy_kernel<<<(n + 255) / 256, 256>>>(out, in, n);
}

// Deduced in a template: T comes from the argument types.
template <typename S>
void copy_any(S *out, const S *in, int n) {
  copy_kernel<<<(n + 255) / 256, 256>>>(out, in, n);
}

// Explicit template arguments, one of them a tuning constant.
void fill(double *out, int n) {
  fill_kernel<double, 4><<<(n + 511) / 512, 128>>>(out, 1.0, n);
}

void use() { copy_any<int>(nullptr, nullptr, 0); }

// Launches that pass different values are a dispatch, not a constant.
template <int N> __global__ void dispatch_kernel(float *x) { x[threadIdx.x] *= N; }
void dispatch(float *x, bool big) {
  if (big)
    dispatch_kernel<8><<<1, 64>>>(x);
  else
    dispatch_kernel<2><<<1, 64>>>(x);
}

// CAND:      CAND block_size copy_kernel value=256 spelling=256 high
// CAND-NEXT:   SITE 15:29 index_arith '256' -> {P}
// CAND-NEXT:   SITE 15:60 loop_stride '256' -> {P}
// CAND-NEXT:   SITE 29:22 launch_grid '255' -> {P} - 1
// CAND-NEXT:   SITE 29:29 launch_grid '256' -> {P}
// CAND-NEXT:   SITE 29:34 launch_block '256' -> {P}
// CAND-NEXT:   SITE 35:22 launch_grid '255' -> {P} - 1
// CAND-NEXT:   SITE 35:29 launch_grid '256' -> {P}
// CAND-NEXT:   SITE 35:34 launch_block '256' -> {P}
// CAND-NEXT:   IMPLIES {block_size#0} <= 1024
// CAND-NEXT: CAND vector_width fill_kernel value=4 spelling=4 high
// CAND-NEXT:   SITE 40:23 template_arg '4' -> {P}
// CAND-NEXT: CAND block_size fill_kernel value=128 spelling=128 high launch-param
// CAND-NEXT:   SITE 40:45 launch_block '128' -> {P}
// 512 = 128 * 4 in the grid is not the block size: not a site.
// CAND-NOT:    SITE 40:{{[0-9]+}} launch_grid
// CAND:      CAND block_size dispatch_kernel value=64 spelling=64 high launch-param
// CAND-NEXT:   SITE 49:29 launch_block '64' -> {P}
// CAND-NEXT:   SITE 51:29 launch_block '64' -> {P}
// CAND-NOT:  template_arg

// TPL:      template <typename T, int BLOCK_SIZE = 256>
// TPL-NEXT: __global__ void copy_kernel(T *out, const T *in, int n) {
// TPL:        for (int i = blockIdx.x * BLOCK_SIZE + threadIdx.x; i < n; i += BLOCK_SIZE * gridDim.x)
// fill_kernel and dispatch_kernel read blockDim: their block sizes are the
// launchers' (launch parameters), the kernels keep their lists.
// TPL:      template <typename T, int VEC>
// TPL-NEXT: __global__ void fill_kernel(T *out, T v, int n) {
// T is spelled from the specialisation the launch resolved to.
// TPL:      template <int BLOCK_SIZE = 256>
// TPL-NEXT: void copy_floats(float *out, const float *in, int n) {
// TPL-NEXT:   copy_kernel<float, BLOCK_SIZE><<<(n + (BLOCK_SIZE - 1)) / BLOCK_SIZE, BLOCK_SIZE>>>(out, in, n);
// In a template, T is deduced from the argument types: S.
// TPL:      template <typename S, int BLOCK_SIZE = 256>
// TPL-NEXT: void copy_any(S *out, const S *in, int n) {
// TPL-NEXT:   copy_kernel<S, BLOCK_SIZE><<<(n + (BLOCK_SIZE - 1)) / BLOCK_SIZE, BLOCK_SIZE>>>(out, in, n);
// The launch's template argument 4 sets the kernel's own VEC.
// TPL:      template <int FILL_KERNEL_VEC = 4, int BLOCK_SIZE = 128>
// TPL-NEXT: void fill(double *out, int n) {
// TPL-NEXT:   static_assert(BLOCK_SIZE <= 1024, "ktune: BLOCK_SIZE <= 1024");
// TPL-NEXT:   fill_kernel<double, FILL_KERNEL_VEC><<<(n + 511) / 512, BLOCK_SIZE>>>(out, 1.0, n);
// TPL:      void use() { copy_any<int>(nullptr, nullptr, 0); }
// TPL:      template <int N> __global__ void dispatch_kernel(float *x) { x[threadIdx.x] *= N; }
// TPL-NEXT: template <int BLOCK_SIZE = 64>
// TPL-NEXT: void dispatch(float *x, bool big) {
// TPL:          dispatch_kernel<8><<<1, BLOCK_SIZE>>>(x);
// TPL:          dispatch_kernel<2><<<1, BLOCK_SIZE>>>(x);

// MANIFEST:      KERNEL copy_kernel
// MANIFEST-NEXT:   PARAM T typename
// MANIFEST-NEXT:   PARAM BLOCK_SIZE int tunable block_size default=256
// MANIFEST-NEXT:   ARG T * out
// MANIFEST-NEXT:   ARG const T * in
// MANIFEST-NEXT:   ARG int n
// MANIFEST-NEXT:   CONSTRAINT BLOCK_SIZE <= 1024
// MANIFEST-NEXT:   LAUNCH grid=['(n + (BLOCK_SIZE - 1)) / BLOCK_SIZE'] block=['BLOCK_SIZE'] smem=0 from={{.*}}already-templated.cu:29
// MANIFEST-NEXT: KERNEL fill_kernel
// MANIFEST-NEXT:   PARAM T typename
// MANIFEST-NEXT:   PARAM VEC int tunable vector_width default=4
// MANIFEST-NEXT:   LAUNCH-PARAM BLOCK_SIZE int block_size default=128 launcher=fill
// MANIFEST:        LAUNCH grid=['(n + 511) / 512'] block=['BLOCK_SIZE'] smem=0
// MANIFEST:      KERNEL dispatch_kernel
// MANIFEST-NEXT:   PARAM N int
// MANIFEST-NEXT:   LAUNCH-PARAM BLOCK_SIZE int block_size default=64 launcher=dispatch
// Every host function that became a template is a launcher stage 2 can call.
// MANIFEST:      LAUNCHER copy_floats returns=void kernels=['copy_kernel'] forwarder
// MANIFEST:      LAUNCHER copy_any returns=void kernels=['copy_kernel']{{$}}
// MANIFEST-NEXT:   PARAM S typename
// MANIFEST-NEXT:   PARAM BLOCK_SIZE int tunable block_size default=256
// MANIFEST:      LAUNCHER fill returns=void kernels=['fill_kernel'] forwarder
// MANIFEST-NEXT:   PARAM FILL_KERNEL_VEC int tunable vector_width default=4
// MANIFEST-NEXT:   PARAM BLOCK_SIZE int tunable block_size default=128
