// A constant that is only part of a launch's template argument
// (`seed<256, EDGES / NA>`, cuckoo's miners) is not the kernel's parameter:
// the kernel's own reads of NA stay NA's, not `bktOutSize`'s, and the
// default instantiation's PTX is the original's.
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX

#define NA 4
#define EDGES 1024

template <int tpb, int bktOutSize>
__global__ void seed(unsigned *out, int n) {
  int nloops[NA];
  for (int a = 0; a < NA; a++)
    nloops[a] = n / NA + a;
  for (int i = threadIdx.x; i < bktOutSize; i += tpb)
    out[blockIdx.x * bktOutSize + i] = nloops[i % NA];
}

void launch_seed(unsigned *out, int n) {
  seed<256, EDGES / NA><<<n, 256>>>(out, n);
}

// TPL-NOT: nloops[bktOutSize]
// TPL-NOT: i % bktOutSize
// TPL:     seed<{{.*}}EDGES / {{[A-Z_0-9]+}}
// PTX: identical
