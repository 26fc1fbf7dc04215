// A kernel that reads its block size from blockDim leaves the choice to the
// host: a literal block, a cap in std::min (either argument order), a floor
// in std::max. Such a constant is a launch parameter: the host function
// becomes a template, the kernel stays as it is, and the manifest lists it
// under launch_params with the launcher that holds it. A block size the
// kernel also spells (__launch_bounds__) stays a kernel parameter; a
// host-side 16 / sizeof(T) alone is no knob.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %inputs/refactor/summarize.py < %t/out.json | FileCheck %s --check-prefix=MANIFEST

#include <algorithm>
#include <cstdint>

template <typename T>
__global__ void gate(T *out, const T *in, int d) {
  for (int i = threadIdx.x; i < d; i += blockDim.x)
    out[blockIdx.x * d + i] = in[blockIdx.x * 2 * d + i] * in[blockIdx.x * 2 * d + d + i];
}

__global__ void __launch_bounds__(256) bounded(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] += 1.0f;
}

template <typename T>
void gate_rows(T *out, const T *in, int d, int64_t rows, cudaStream_t s) {
  uint32_t vec = 16 / sizeof(T);
  dim3 block(std::min(d / vec, 1024U));
  gate<T><<<rows, block, 0, s>>>(out, in, d);
}

void gate_floor(float *out, const float *in, int d, int rows) {
  gate<float><<<rows, std::max(d / 4, 64)>>>(out, in, d);
}

void bounded_run(float *x, int n) {
  bounded<<<(n + 255) / 256, 256>>>(x, n);
}

template void gate_rows<float>(float *, const float *, int, int64_t,
                               cudaStream_t);

// CAND:      CAND block_size gate value=1024 spelling=1024 high type=unsigned int launch-param
// CAND-NEXT:   SITE 34:32 launch_block '1024U' -> {P}
// CAND:      CAND block_size gate value=64 spelling=64 high launch-param
// CAND-NEXT:   SITE 39:39 launch_block '64' -> {P}
// The host's 16 / sizeof(T) alone is not offered.
// CAND-NOT:  vector_width gate
// CAND:      CAND block_size bounded value=256 spelling=256 high{{$}}
// CAND-NEXT:   SITE 25:35 launch_bounds '256' -> {P}

// TPL:      template <typename T>
// TPL-NEXT: __global__ void gate(T *out, const T *in, int d) {
// TPL:      template <int BLOCK_SIZE = 256>
// TPL-NEXT: __global__ void __launch_bounds__(BLOCK_SIZE) bounded(float *x, int n) {
// The cap keeps its type: std::min still deduces unsigned from both sides.
// TPL:      template <typename T, unsigned int BLOCK_SIZE = 1024>
// TPL-NEXT: void gate_rows(T *out, const T *in, int d, int64_t rows, cudaStream_t s) {
// TPL-NEXT:   static_assert(BLOCK_SIZE <= 1024, "ktune: BLOCK_SIZE <= 1024");
// TPL:        dim3 block(std::min(d / vec, BLOCK_SIZE));
// TPL-NEXT:   gate<T><<<rows, block, 0, s>>>(out, in, d);
// TPL:      template <int BLOCK_SIZE_2 = 64>
// TPL-NEXT: void gate_floor(float *out, const float *in, int d, int rows) {
// TPL:        gate<float><<<rows, std::max(d / 4, BLOCK_SIZE_2)>>>(out, in, d);
// TPL:      return gate_floor<64>(out, in, d, rows);
// TPL:      template <int BLOCK_SIZE = 256>
// TPL-NEXT: void bounded_run(float *x, int n) {
// TPL-NEXT:   bounded<BLOCK_SIZE><<<(n + (BLOCK_SIZE - 1)) / BLOCK_SIZE, BLOCK_SIZE>>>(x, n);

// MANIFEST:      KERNEL gate
// MANIFEST-NEXT:   PARAM T typename
// MANIFEST-NEXT:   LAUNCH-PARAM BLOCK_SIZE unsigned int block_size default=1024 launcher=gate_rows
// MANIFEST-NEXT:   LAUNCH-PARAM BLOCK_SIZE_2 int block_size default=64 launcher=gate_floor
// MANIFEST:        LAUNCH grid=['rows'] block=['min(d / (16 / sizeof(T)), BLOCK_SIZE)'] smem=0
// MANIFEST:      KERNEL bounded
// MANIFEST-NEXT:   PARAM BLOCK_SIZE int tunable block_size default=256
// MANIFEST-NOT:    LAUNCH-PARAM
// MANIFEST:      LAUNCHER gate_rows returns=void kernels=['gate']{{$}}
// MANIFEST-NEXT:   PARAM T typename
// MANIFEST-NEXT:   PARAM BLOCK_SIZE unsigned int tunable block_size default=1024
// MANIFEST-NEXT:   ARG T * out
// MANIFEST-NEXT:   ARG const T * in
// MANIFEST-NEXT:   ARG int d
// MANIFEST-NEXT:   ARG int64_t rows canonical=long
// MANIFEST:      LAUNCHER gate_floor returns=void kernels=['gate'] forwarder
// MANIFEST:      LAUNCHER bounded_run returns=void kernels=['bounded'] forwarder
