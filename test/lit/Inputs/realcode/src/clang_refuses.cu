// Written for the evaluation harness test: nvcc compiles it, while the
// kernel has an error for Clang (nvcc defines __CUDA_ARCH_LIST__, the
// architectures it compiles for; Clang does not).
__global__ void only_nvcc(float *x) {
#ifndef __CUDA_ARCH_LIST__
  x[threadIdx.x] = not_declared_for_clang;
#endif
  x[threadIdx.x] = 1.0f;
}

void launch_only_nvcc(float *x) { only_nvcc<<<1, 64>>>(x); }
