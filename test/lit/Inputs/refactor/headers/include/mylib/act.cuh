// A kernel in a project header, launched from src/act.cu. Its unroll count
// and block size are knobs; its helper lives in a sibling header found
// beside this one.
#ifndef MYLIB_ACT_CUH
#define MYLIB_ACT_CUH

#include "detail.cuh"

namespace mylib {

__global__ void __launch_bounds__(256) scale_kernel(float *out, const float *in,
                                                    int n) {
  int base = (blockIdx.x * 256 + threadIdx.x) * 4;
#pragma unroll 4
  for (int k = 0; k < 4; ++k) {
    int i = base + k;
    if (i < n)
      out[i] = detail::twice(in[i]) + __LINE__ * 0.0f;
  }
}

} // namespace mylib

#endif
