// A constant derived from a lifted macro keeps its declared type at every
// use, comparisons and remainders included (cuckoo's `const u32 NX = 1 <<
// XBITS`): `row < NX` stays an unsigned comparison and `group % NX` an
// unsigned remainder, so the default instantiation's PTX is the original's.
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX

typedef unsigned int u32;
#define XBITS 6
const u32 NX = 1 << XBITS;

__global__ void buckets(u32 *out, const u32 *in, int n) {
  __shared__ int counters[NX];
  for (int row = threadIdx.x; row < NX; row += blockDim.x)
    counters[row] = 0;
  __syncthreads();
  const int col = blockIdx.x % NX;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    atomicAdd(&counters[in[i] % NX], 1);
  __syncthreads();
  for (int row = threadIdx.x; row < NX; row += blockDim.x)
    out[row * NX + col] += counters[row];
}

void launch_buckets(u32 *out, const u32 *in, int n) {
  buckets<<<(n + 255) / 256, 256>>>(out, in, n);
}

// TPL:     for (int row = threadIdx.x; row < static_cast<u32>(1 << {{[A-Z_0-9]+}}); row += blockDim.x)
// TPL-NOT: static_cast<int>(static_cast<u32>
// PTX: identical
