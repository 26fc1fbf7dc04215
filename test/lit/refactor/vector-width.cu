// Vector widths: 16 / sizeof(T) is a width in bytes, linked between the
// kernel and the host; vector types (float4) are reported with low
// confidence and never rewritten (that needs a type mapping).
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %inputs/refactor/summarize.py < %t/out.json | FileCheck %s --check-prefix=MANIFEST
// RUN: ktune-refactor %s --candidates | FileCheck %s --check-prefix=WHY

template <typename T>
__global__ void copy_vec(T *out, const T *in, int n) {
  // The width in bytes is the knob; the element count follows from T.
  constexpr int kVec = 16 / sizeof(T);
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * kVec;
#pragma unroll
  for (int k = 0; k < kVec; ++k)
    if (i + k < n)
      out[i + k] = in[i + k];
}

__global__ void copy_float4(float4 *out, const float4 *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}

template <typename T>
void launch(T *out, const T *in, int n, float4 *o4, const float4 *i4) {
  const int vec = 16 / sizeof(T);
  copy_vec<T><<<(n / vec + 127) / 128, 128>>>(out, in, n);
  copy_float4<<<(n / 4 + 255) / 256, 256>>>(o4, i4, n / 4);
}

void run(float *a, const float *b, int n) { launch(a, b, n, nullptr, nullptr); }

// CAND:      CAND vector_width copy_vec value=16 spelling=16 medium
// CAND-NEXT:   SITE 16:24 vector_bytes '16' -> {P}
// CAND-NEXT:   SITE 32:19 vector_bytes '16' -> {P}
// CAND-NEXT: CAND block_size copy_vec value=128 spelling=128 high launch-param
// CAND-NEXT:   SITE 33:28 launch_grid '127' -> {P} - 1
// CAND-NEXT:   SITE 33:35 launch_grid '128' -> {P}
// CAND-NEXT:   SITE 33:40 launch_block '128' -> {P}
// CAND-NEXT:   IMPLIES {block_size#1} <= 1024
// CAND-NEXT: CAND vector_width copy_float4 value=4 spelling=4 low
// CAND-NEXT:   SITE 24:29 vector_type 'float4' -> 
// CAND-NEXT:   SITE 24:48 vector_type 'float4' -> 
// CAND-NEXT: CAND block_size copy_float4 value=256 spelling=256 high launch-param
// CAND-NEXT:   SITE 34:26 launch_grid '255' -> {P} - 1
// CAND-NEXT:   SITE 34:33 launch_grid '256' -> {P}
// CAND-NEXT:   SITE 34:38 launch_block '256' -> {P}
// CAND-NEXT:   IMPLIES {block_size#3} <= 1024

// WHY: "why": "vector type float4 (4 lanes) used for loads/stores; changing the width needs a type mapping and index changes, so it is reported but not rewritten"

// TPL:        constexpr int kVec = 16 / sizeof(T);
// TPL:      __global__ void copy_float4(float4 *out, const float4 *in, int n) {
// TPL:        const int vec = 16 / sizeof(T);
// TPL-NEXT:   copy_vec<T><<<(n / vec + (COPY_VEC_BLOCK_SIZE - 1)) / COPY_VEC_BLOCK_SIZE, COPY_VEC_BLOCK_SIZE>>>(out, in, n);
// TPL-NEXT:   copy_float4<<<(n / 4 + (COPY_FLOAT4_BLOCK_SIZE - 1)) / COPY_FLOAT4_BLOCK_SIZE, COPY_FLOAT4_BLOCK_SIZE>>>(o4, i4, n / 4);

// The host passes n / 4 as the kernel's n: the grid is read in its terms.
// Both block sizes are the launcher's (the kernels read blockDim): launch
// parameters named after their kernels in launch(); sizeof(T) stays.
// MANIFEST:      KERNEL copy_vec
// MANIFEST-NEXT:   PARAM T typename
// MANIFEST-NEXT:   LAUNCH-PARAM COPY_VEC_BLOCK_SIZE int block_size default=128 launcher=launch
// MANIFEST:        CONSTRAINT COPY_VEC_BLOCK_SIZE <= 1024
// MANIFEST-NEXT:   LAUNCH grid=['(n / (16 / sizeof(T)) + (COPY_VEC_BLOCK_SIZE - 1)) / COPY_VEC_BLOCK_SIZE'] block=['COPY_VEC_BLOCK_SIZE'] smem=0
// MANIFEST:      KERNEL copy_float4
// MANIFEST-NEXT:   LAUNCH-PARAM COPY_FLOAT4_BLOCK_SIZE int block_size default=256 launcher=launch
// MANIFEST:        LAUNCH grid=['(n + (COPY_FLOAT4_BLOCK_SIZE - 1)) / COPY_FLOAT4_BLOCK_SIZE'] block=['COPY_FLOAT4_BLOCK_SIZE'] smem=0
