// Stand-in CUDA runtime declarations, for parsing kernels with Clang when no
// CUDA toolkit is installed (ktune-refactor --no-cuda-toolkit, or no toolkit
// found). Only what parsing needs: attributes, dim3, the launch
// configuration hooks Clang calls for <<<...>>>, built-in index variables,
// vector types and the common intrinsics. Nothing here is ever compiled for
// real.
#pragma once

#include <stddef.h>

#include <__clang_cuda_builtin_vars.h>

#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict

struct dim3 {
  unsigned x, y, z;
  __host__ __device__ constexpr dim3(unsigned vx = 1, unsigned vy = 1,
                                     unsigned vz = 1)
      : x(vx), y(vy), z(vz) {}
};

typedef struct CUstream_st *cudaStream_t;
typedef int cudaError_t;
#define cudaSuccess 0
extern "C" __host__ cudaError_t cudaGetLastError(void);

extern "C" int cudaConfigureCall(dim3 gridSize, dim3 blockSize,
                                 size_t sharedSize = 0,
                                 cudaStream_t stream = 0);
extern "C" int __cudaPushCallConfiguration(dim3 gridSize, dim3 blockSize,
                                           size_t sharedSize = 0,
                                           cudaStream_t stream = 0);

#define KTUNE_SHIM_VECTOR2(T, N)                                               \
  struct __attribute__((aligned(2 * sizeof(T)))) N { T x, y; }
#define KTUNE_SHIM_VECTOR4(T, N)                                               \
  struct __attribute__((aligned(4 * sizeof(T)))) N { T x, y, z, w; }
KTUNE_SHIM_VECTOR2(float, float2);
KTUNE_SHIM_VECTOR4(float, float4);
KTUNE_SHIM_VECTOR2(double, double2);
KTUNE_SHIM_VECTOR2(int, int2);
KTUNE_SHIM_VECTOR4(int, int4);
KTUNE_SHIM_VECTOR2(unsigned, uint2);
KTUNE_SHIM_VECTOR4(unsigned, uint4);
KTUNE_SHIM_VECTOR4(char, char4);
KTUNE_SHIM_VECTOR4(unsigned char, uchar4);
#undef KTUNE_SHIM_VECTOR2
#undef KTUNE_SHIM_VECTOR4

__device__ void __syncthreads();
__device__ void __syncwarp(unsigned mask = 0xffffffffu);
__device__ unsigned __activemask();
__device__ unsigned __ballot_sync(unsigned mask, int predicate);
__device__ int __any_sync(unsigned mask, int predicate);
__device__ int __all_sync(unsigned mask, int predicate);
template <class T>
__device__ T __shfl_sync(unsigned mask, T value, int lane, int width = 32);
template <class T>
__device__ T __shfl_xor_sync(unsigned mask, T value, int lane, int width = 32);
template <class T>
__device__ T __shfl_down_sync(unsigned mask, T value, unsigned delta,
                              int width = 32);
template <class T>
__device__ T __shfl_up_sync(unsigned mask, T value, unsigned delta,
                            int width = 32);
template <class T> __device__ T __ldg(const T *p);
__device__ float __expf(float);
__device__ float __fdividef(float, float);
__device__ float rsqrtf(float);
__device__ float expf(float);
__device__ float sqrtf(float);
__device__ float fmaxf(float, float);
__device__ float fminf(float, float);
__device__ float fabsf(float);
__device__ float tanhf(float);
__device__ float logf(float);
__device__ int min(int, int);
__device__ int max(int, int);
