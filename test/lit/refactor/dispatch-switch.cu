// A dispatch turns a runtime value into a constant, case by case:
// `switch (vec) { case 4: { constexpr int V = 4; k<V><<<...>>>; } ...}`.
// The case constants are data-dependent, never knobs, and inside the case
// the runtime vec is the kernel's VEC, so the geometry reads it so. The
// block size, chosen on the host, is a launch parameter.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %inputs/refactor/summarize.py < %t/out.json | FileCheck %s --check-prefix=MANIFEST

template <int VEC>
__global__ void copy_vec(float *out, const float *in, int n) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * VEC;
  for (int k = 0; k < VEC; ++k)
    if (i + k < n)
      out[i + k] = in[i + k];
}

void copy(float *out, const float *in, int n, int vec) {
  switch (vec) {
  case 4: {
    constexpr int V = 4;
    copy_vec<V><<<(n / vec + 255) / 256, 256>>>(out, in, n);
    break;
  }
  case 2: {
    constexpr int V = 2;
    copy_vec<V><<<(n / vec + 255) / 256, 256>>>(out, in, n);
    break;
  }
  }
}

// CAND:      CAND block_size copy_vec value=256 spelling=256 high launch-param
// CAND-NEXT:   SITE 26:30 launch_grid '255' -> {P} - 1
// CAND-NEXT:   SITE 26:37 launch_grid '256' -> {P}
// CAND-NEXT:   SITE 26:42 launch_block '256' -> {P}
// CAND-NEXT:   SITE 31:30 launch_grid '255' -> {P} - 1
// CAND-NEXT:   SITE 31:37 launch_grid '256' -> {P}
// CAND-NEXT:   SITE 31:42 launch_block '256' -> {P}
// CAND-NOT:  CAND

// TPL:        constexpr int V = 4;
// TPL-NEXT:   copy_vec<V><<<(n / vec + (BLOCK_SIZE - 1)) / BLOCK_SIZE, BLOCK_SIZE>>>(out, in, n);
// TPL:        constexpr int V = 2;
// TPL-NEXT:   copy_vec<V><<<(n / vec + (BLOCK_SIZE - 1)) / BLOCK_SIZE, BLOCK_SIZE>>>(out, in, n);

// MANIFEST:      KERNEL copy_vec
// MANIFEST-NEXT:   PARAM VEC int{{$}}
// MANIFEST-NEXT:   LAUNCH-PARAM BLOCK_SIZE int block_size default=256 launcher=copy
// MANIFEST:        LAUNCH grid=['(n / VEC + (BLOCK_SIZE - 1)) / BLOCK_SIZE'] block=['BLOCK_SIZE'] smem=0
