// A cap written through a project's min macro (`#define dMIN(a, b) ((a) <
// (b) ? (a) : (b))`, TensorRT's Mask R-CNN kernels): the bound is spelled
// once, in the macro's argument, and read twice (the comparison and the
// branch). It is the block's bound, as `std::min(n, 1024)` is.
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX

#define dMIN(a, b) ((a) < (b) ? (a) : (b))

__global__ void resample(int n, const float *in, float *out) {
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    out[blockIdx.x * n + i] = 0.5f * in[blockIdx.x * n + i];
}

void run(int rows, int samples, const float *in, float *out, cudaStream_t s) {
  resample<<<rows, dMIN(samples, 1024), 0, s>>>(samples, in, out);
}

void run_local(int rows, int samples, const float *in, float *out) {
  int threads = dMIN(samples, 512);
  resample<<<rows, threads>>>(samples, in, out);
}

// CAND:     CAND block_size resample value=1024 spelling=1024 high launch-param
// CAND-NEXT:  SITE 21:34 launch_block '1024' -> {P}
// CAND:     CAND block_size resample value=512 spelling=512 high launch-param
// CAND-NEXT:  SITE 25:31 launch_block '512' -> {P}
// TPL: resample<<<rows, dMIN(samples, [[P1:BLOCK_SIZE[_0-9]*]]), 0, s>>>
// TPL: int threads = dMIN(samples, [[P2:BLOCK_SIZE[_0-9]*]]);
// PTX: ptx-identical: {{[0-9]+}} function(s) identical
