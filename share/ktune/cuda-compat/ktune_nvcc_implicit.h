// What nvcc's implicit includes (cuda_runtime.h and the CRT headers it
// reads) make visible in every CUDA file and Clang's CUDA headers do not,
// for parsing only: host clock(), CLOCKS_PER_SEC and time() (<time.h>),
// <string.h>, `uint` (<sys/types.h>), and the host overloads of min and
// max that crt/math_functions.hpp declares __host__ __device__ (Clang has
// only the device ones), and __NVCC__ with nvcc's version macros.
// Attributes are spelled out: this header may be read before the CUDA
// runtime wrapper.
#pragma once

#if defined(__clang__) && defined(__CUDA__) && !defined(__CUDACC_RTC__)
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if __has_include(<sys/types.h>)
#include <sys/types.h>
#endif

#ifdef __cplusplus
#define KTUNE_HOST_MINMAX(R, A, B)                                             \
  static inline __attribute__((host)) R min(A a, B b) {                       \
    return static_cast<R>(a) < static_cast<R>(b) ? static_cast<R>(a)         \
                                                 : static_cast<R>(b);        \
  }                                                                            \
  static inline __attribute__((host)) R max(A a, B b) {                       \
    return static_cast<R>(a) > static_cast<R>(b) ? static_cast<R>(a)         \
                                                 : static_cast<R>(b);        \
  }
KTUNE_HOST_MINMAX(int, int, int)
KTUNE_HOST_MINMAX(unsigned int, unsigned int, unsigned int)
KTUNE_HOST_MINMAX(unsigned int, int, unsigned int)
KTUNE_HOST_MINMAX(unsigned int, unsigned int, int)
KTUNE_HOST_MINMAX(long, long, long)
KTUNE_HOST_MINMAX(unsigned long, unsigned long, unsigned long)
KTUNE_HOST_MINMAX(unsigned long, long, unsigned long)
KTUNE_HOST_MINMAX(unsigned long, unsigned long, long)
KTUNE_HOST_MINMAX(long long, long long, long long)
KTUNE_HOST_MINMAX(unsigned long long, unsigned long long, unsigned long long)
KTUNE_HOST_MINMAX(unsigned long long, long long, unsigned long long)
KTUNE_HOST_MINMAX(unsigned long long, unsigned long long, long long)
KTUNE_HOST_MINMAX(float, float, float)
KTUNE_HOST_MINMAX(double, double, double)
KTUNE_HOST_MINMAX(double, float, double)
KTUNE_HOST_MINMAX(double, double, float)
#undef KTUNE_HOST_MINMAX
#endif

// nvcc's own macros, which projects test to tell CUDA from HIP or from a
// plain C++ build (`#ifdef __NVCC__`), with the toolkit's version
// (CUDA_VERSION, from cuda.h). Defined after the CUDA headers Clang's
// wrapper reads, and after CCCL's compiler detection, which must go on
// taking the compiler for Clang (its nvcc paths use nvcc's builtins).
#if !defined(__NVCC__) && defined(CUDA_VERSION)
#if __has_include(<cuda/std/__cccl/compiler.h>) && __has_include(<nv/target>)
#include <cuda/std/__cccl/compiler.h>
#include <nv/target>
#endif
#define __NVCC__ 1
#ifndef __CUDACC_VER_MAJOR__
#define __CUDACC_VER_MAJOR__ (CUDA_VERSION / 1000)
#define __CUDACC_VER_MINOR__ (CUDA_VERSION % 1000 / 10)
#define __CUDACC_VER_BUILD__ 0
#endif
#endif
// nvcc's builtins that tell its extended lambdas apart, which CCCL calls
// when __CUDACC_EXTENDED_LAMBDA__ is defined: Clang's lambdas are plain
// closure types.
#ifndef __nv_is_extended_device_lambda_closure_type
#define __nv_is_extended_device_lambda_closure_type(...) false
#define __nv_is_extended_host_device_lambda_closure_type(...) false
#define __nv_is_extended_device_lambda_with_preserved_return_type(...) false
#endif
// nvcc defines __CUDACC__ as 1, which `#if __CUDACC__` tests (NCCL's device
// headers); Clang's runtime wrapper defines it empty.
#ifdef __CUDACC__
#undef __CUDACC__
#define __CUDACC__ 1
#endif
#endif
