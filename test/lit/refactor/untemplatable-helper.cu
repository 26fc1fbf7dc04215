// A device helper that cannot become a template (a functor's operator(),
// which takes no explicit template arguments) keeps the constants it uses,
// and so does every kernel calling it: a note says so, and the file's
// other constants are lifted. Before, the plan lifted the block size and
// the whole file was refused ("cannot become a template").
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates 2>/dev/null | %python %inputs/refactor/summarize.py | FileCheck %s --check-prefix=CAND
// RUN: ktune-refactor %s -o %t/out.cu 2>&1 | FileCheck %s
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX

#include <cuda_runtime.h>

struct RayCaster {
  enum { CTA_SIZE_X = 32, CTA_SIZE_Y = 8 };
  int cols, rows;
  float *out;
  __device__ void operator()() const {
    int x = threadIdx.x + blockIdx.x * CTA_SIZE_X;
    int y = threadIdx.y + blockIdx.y * CTA_SIZE_Y;
    if (x < cols && y < rows)
      out[y * cols + x] = 1.0f;
  }
};

__global__ void rayCastKernel(const RayCaster rc) { rc(); }

__global__ void scale(float *x, int n) {
  int i = blockIdx.x * 256 + threadIdx.x;
  if (i < n)
    x[i] *= 2.0f;
}

void raycast(RayCaster rc, float *x, int n) {
  dim3 block(RayCaster::CTA_SIZE_X, RayCaster::CTA_SIZE_Y);
  dim3 grid((rc.cols + block.x - 1) / block.x, (rc.rows + block.y - 1) / block.y);
  rayCastKernel<<<grid, block>>>(rc);
  scale<<<(n + 255) / 256, 256>>>(x, n);
}

// CAND-NOT: rayCastKernel
// CAND: CAND block_size scale value=256
// CAND-NOT: rayCastKernel

// CHECK-DAG: note: {{.*}}untemplatable-helper.cu:19: CTA_SIZE_X keeps its value in rayCastKernel: it is used in RayCaster::operator(), which cannot become a template (it is an operator
// CHECK-DAG: note: {{.*}}untemplatable-helper.cu:20: CTA_SIZE_Y keeps its value in rayCastKernel
// CHECK: wrote {{.*}}: 1 parameter in 1 kernel

// PTX: ptx-identical: {{[0-9]+}} function(s) identical
