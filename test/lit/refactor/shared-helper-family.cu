// Two kernels share a device helper whose shared array (one slot per warp)
// has the value of a host block size both launches read (a local every
// launch of the function reads: one edit for both kernels). The helper's
// site is not such a shared site, so no plan may edit it once for both
// kernels: the family is left at its values and the rest is lifted (the
// file was refused whole, "this edit overlaps the edit of ...").
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/out.json
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX

__device__ float blockSum(float v) {
  static __shared__ float partial[32];
  for (int m = 16; m > 0; m >>= 1)
    v += __shfl_xor_sync(0xffffffff, v, m);
  if ((threadIdx.x & 31) == 0)
    partial[threadIdx.x >> 5] = v;
  __syncthreads();
  v = threadIdx.x < (blockDim.x >> 5) ? partial[threadIdx.x & 31] : 0.f;
  for (int m = 16; m > 0; m >>= 1)
    v += __shfl_xor_sync(0xffffffff, v, m);
  return v;
}

__global__ void rowsum(float *out, const float *in, int n) {
  float v = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    v += in[blockIdx.x * n + i];
  v = blockSum(v);
  if (threadIdx.x == 0)
    out[blockIdx.x] = v;
}

__global__ void rowsum_scaled(float *out, const float *in, int n, float s) {
  float v = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    v += s * in[blockIdx.x * n + i];
  v = blockSum(v);
  if (threadIdx.x == 0)
    out[blockIdx.x] = v;
}

void launch(float *out, const float *in, int rows, int n, float s) {
  dim3 grid(rows), block;
  if (n <= 32)
    block.x = 32;
  else
    block.x = 256;
  if (s == 1.0f)
    rowsum<<<grid, block>>>(out, in, n);
  else
    rowsum_scaled<<<grid, block>>>(out, in, n, s);
}

// MANIFEST: "kernels":
// MANIFEST: "default": 256
// PTX: identical
