// Built with -rdc, a non-template kernel's static __shared__ variables are
// declared in its body ("demoted") and a template's at module scope: both
// PTX checkers compare them as one declaration (cuSZp's kernels, built
// relocatable).
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --verify -o %t/out.cu -- -rdc=true 2> %t/stderr.txt
// RUN: FileCheck %s --check-prefix=VERIFY < %t/stderr.txt
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc -- -rdc=true | FileCheck %s --check-prefix=PTX

__global__ void block_sums(unsigned *out, const unsigned *in, int n) {
  __shared__ unsigned sum;
  if (threadIdx.x == 0)
    sum = 0;
  __syncthreads();
  unsigned local = 0;
#pragma unroll 4
  for (int i = blockIdx.x * 1024 + threadIdx.x; i < (blockIdx.x + 1) * 1024 && i < n;
       i += blockDim.x)
    local += in[i];
  atomicAdd(&sum, local);
  __syncthreads();
  if (threadIdx.x == 0)
    out[blockIdx.x] = sum;
}

void launch_block_sums(unsigned *out, const unsigned *in, int n) {
  block_sums<<<(n + 1023) / 1024, 256>>>(out, in, n);
}

// VERIFY: self-check: {{[0-9]+}} function(s) PTX-identical at the defaults
// PTX: identical
