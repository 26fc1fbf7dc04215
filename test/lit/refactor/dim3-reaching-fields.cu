// The fields of a local dim3 where a launch reads them: its constructor,
// then the field assignments that run before the launch, in the blocks that
// hold it and in `if`s on the way (`cond ? assigned : before`). A field
// changed in a loop around the launch has no one value: nothing is lifted
// there. (FasterTransformer's layernorm and activation launchers.)
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: FileCheck %s --check-prefix=NOTE < %t/stderr.txt
// RUN: %python %inputs/refactor/summarize.py < %t/out.json | FileCheck %s --check-prefix=MANIFEST
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX

#include <algorithm>

__global__ void scale_rows(float *x, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    x[blockIdx.x * n + i] *= 2.0f;
}

// A field assigned under an `if` without `else`.
void t5_norm(float *x, int m, int n) {
  dim3 grid(m);
  dim3 block(std::min(n, 1024));
  if (n % 32 != 0) {
    block.x = 768;
  }
  scale_rows<<<grid, block>>>(x, n);
}

// Fields assigned in both branches; the grid too.
void activation(float *x, int m, int n) {
  dim3 block, grid;
  if (n / 4 <= 1024) {
    block.x = n / 4;
    grid.x = m;
  } else {
    block.x = 512;
    grid.x = m * 2;
  }
  scale_rows<<<grid, block>>>(x, n);
}

// Assigned in the branch that holds the launch: the constructor's value is
// overwritten before it.
void post_norm(float *x, int m, int n) {
  dim3 grid(m);
  dim3 block(std::min(n, 1024));
  if (m >= 512) {
    scale_rows<<<grid, n / 8>>>(x, n);
  } else {
    block.x = std::min(n, 256);
    int trips = (n + block.x - 1) / block.x;
    if (trips == 1)
      scale_rows<<<grid, block>>>(x, n);
  }
}

// Doubled in a loop around the launch: no one value.
void doubling(float *x, int m, int n) {
  dim3 block(64);
  for (int r = 0; r < 3; ++r) {
    scale_rows<<<m, block>>>(x, n);
    block.x *= 2;
  }
}

// A whole dim3 assigned in each case of a table (FasterTransformer's
// find_context_dups): each case's block and template argument together.
template <int SEQ>
__global__ void first_of_rows(int *out, const int *ids, int n) {
  __shared__ int seq[SEQ];
  for (int i = threadIdx.x; i < SEQ; i += blockDim.x)
    seq[i] = ids[blockIdx.x * SEQ + i];
  __syncthreads();
  if (threadIdx.x == 0)
    out[blockIdx.x] = seq[0] + n;
}

void first_of_each(int *out, const int *ids, int rows, int len) {
  dim3 block{512};
  dim3 grid{(rows + block.x - 1) / block.x};
  if (len <= 128) {
    block = 128;
    first_of_rows<128><<<grid, block>>>(out, ids, len);
  } else {
    block = 256;
    first_of_rows<256><<<grid, block>>>(out, ids, len);
  }
}

// A cap written as an if (FasterTransformer's generic activation): the
// bound in the condition changes with the branch that sets it, like
// std::min's.
void capped(float *x, int m, int n) {
  dim3 block, grid;
  if (n / 4 <= 640) {
    block.x = n / 4;
    grid.x = m;
  } else {
    block.x = 640;
    grid.x = m * 4;
  }
  scale_rows<<<grid, block>>>(x, n);
}

// CAND-NOT:  value=64
// CAND:      CAND block_size scale_rows value=1024 spelling=1024 high launch-param
// CAND-NEXT:   SITE 25:26 launch_block '1024' -> {P}
// CAND:      CAND block_size scale_rows value=768 spelling=768 high launch-param
// CAND-NEXT:   SITE 27:15 launch_block '768' -> {P}
// CAND:      CAND block_size scale_rows value=512 spelling=512 high launch-param
// CAND-NEXT:   SITE 39:15 launch_block '512' -> {P}
// CAND:      CAND block_size scale_rows value=256 spelling=256 high launch-param
// CAND-NEXT:   SITE 53:27 launch_block '256' -> {P}
// CAND:      CAND block_size scale_rows value=640 spelling=640 high launch-param
// CAND-NEXT:   SITE 98:16 launch_block '640' -> {P}
// CAND-NEXT:   SITE 102:15 launch_block '640' -> {P}
// CAND:      CAND block_size first_of_rows value=128 spelling=128 high
// CAND-NEXT:   SITE 85:13 launch_block '128' -> {P}
// CAND-NEXT:   SITE 86:19 template_arg '128' -> {P}
// CAND-NEXT:   CASE {{.*}}dim3-reaching-fields.cu:84 #0 when (len) <= (128)
// CAND:      CAND block_size first_of_rows value=256 spelling=256 high
// CAND-NEXT:   SITE 88:13 launch_block '256' -> {P}
// CAND-NEXT:   SITE 89:19 template_arg '256' -> {P}
// CAND-NEXT:   CASE {{.*}}dim3-reaching-fields.cu:84 #1 when !((len) <= (128))
// CAND-NOT:  value=64

// The kernel's geometry, from its first launch:
// MANIFEST: LAUNCH grid=['m'] block=['n % 32 != 0 ? BLOCK_SIZE_2 : min(n, BLOCK_SIZE)']
// MANIFEST: LAUNCHER t5_norm
// MANIFEST: LAUNCHER activation
// MANIFEST-NEXT: PARAM BLOCK_SIZE_3 int tunable block_size default=512
// MANIFEST: LAUNCHER post_norm
// MANIFEST-NEXT: PARAM BLOCK_SIZE_4 int tunable block_size default=256

// NOTE: dim3-reaching-fields.cu:{{[0-9]+}}:{{[0-9]+}}: the block `block` of this launch is changed where its value cannot be followed (in a loop, a switch, through a pointer or a call): its constants are not lifted
// PTX: ptx-identical: 3 function(s) identical
