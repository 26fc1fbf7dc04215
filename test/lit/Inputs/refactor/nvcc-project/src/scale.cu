// Written for the cli-nvcc-flags test: it parses only with the flags of
// its nvcc command translated (macros, include path, C++17, OpenMP through
// -Xcompiler, the architecture from -gencode).
#include <omp.h>
#include "nvcc_cfg.h"

#ifndef USE_SCALE
#error "-DUSE_SCALE from the compile command is missing"
#endif
#ifndef _OPENMP
#error "-fopenmp (given as -Xcompiler -fopenmp) is missing"
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ != 800
#error "the device side must be parsed for sm_80, as -gencode says"
#endif

template <class T> __global__ void scale(T *x, int n) {
  int i = blockIdx.x * SCALE_THREADS + threadIdx.x;
  if constexpr (sizeof(T) == 4) {
    if (i < n)
      x[i] *= 2;
  }
}

void run(float *x, int n) {
  double start = omp_get_wtime();
  scale<float><<<(n + SCALE_THREADS - 1) / SCALE_THREADS, SCALE_THREADS>>>(x, n);
  (void)start;
}
