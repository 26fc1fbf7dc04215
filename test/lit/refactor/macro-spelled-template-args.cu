// A kernel named as a macro's argument whose template arguments the macro's
// body spells (kmcuda's `KERNEL_SWITCH(f, <<<grid, block>>>(...))`
// expanding to `f<L2, float><<<...>>>`): a new template argument cannot be
// added to that launch, so the launcher keeps its configuration, with a
// note, and the kernel's own parameter keeps its default there. The output
// compiles and keeps the original's PTX.
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: FileCheck %s --check-prefix=NOTE < %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %nvcc -std=c++17 -arch=sm_90 -c %t/out.cu -o %t/out.o
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX

#define KERNEL_SWITCH(f, ...)                                                  \
  do {                                                                         \
    switch (metric) {                                                          \
    case 0: {                                                                  \
      using F = float;                                                         \
      f<0, float> __VA_ARGS__;                                                 \
      break;                                                                   \
    }                                                                          \
    default: {                                                                 \
      using F = float;                                                         \
      f<1, float> __VA_ARGS__;                                                 \
      break;                                                                   \
    }                                                                          \
    }                                                                          \
  } while (false)

template <int M, typename F> __global__ void adjust(F *x, int n) {
#pragma unroll 4
  for (int j = 0; j < 8; j++) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
      x[i] += M + j;
  }
}

void run(int metric, float *x, int n) {
  dim3 block(256, 1, 1);
  dim3 grid((n + block.x - 1) / block.x, 1, 1);
  KERNEL_SWITCH(adjust, <<<grid, block>>>(reinterpret_cast<F *>(x), n));
}

// NOTE: the launch of adjust in run keeps the default configuration: it is spelled in the body of macro KERNEL_SWITCH, where template arguments cannot be added
// NOTE: wrote {{.*}}: 1 parameter in 1 kernel

// TPL:      template <int M, typename F, int UNROLL = 4> __global__ void adjust(F *x, int n) {
// TPL:      void run(int metric, float *x, int n) {
// TPL-NEXT:   dim3 block(256, 1, 1);
// TPL:        KERNEL_SWITCH(adjust, <<<grid, block>>>(reinterpret_cast<F *>(x), n));

// PTX: ptx-identical: {{[1-9][0-9]*}} function(s) identical
