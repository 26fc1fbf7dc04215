// Declarations Clang's CUDA headers leave out, for parsing only.
//
// Clang does not include the toolkit's sm_32_intrinsics.h (it defines __ldg
// with builtins instead), so the cache-hinted loads and stores declared
// there (__ldcg, __ldcs, __stcs, ...) are unknown to it for non-half types.
// ktune-refactor only parses kernels, so declarations suffice. Attributes are
// spelled out: this header may be read before the CUDA runtime wrapper.
#pragma once

#if defined(__clang__) && defined(__CUDA__) && !defined(__CUDACC_RTC__)
template <class T> __attribute__((device)) T __ldca(const T *ptr);
template <class T> __attribute__((device)) T __ldcg(const T *ptr);
template <class T> __attribute__((device)) T __ldcs(const T *ptr);
template <class T> __attribute__((device)) T __ldlu(const T *ptr);
template <class T> __attribute__((device)) T __ldcv(const T *ptr);
template <class T> __attribute__((device)) void __stwb(T *ptr, T value);
template <class T> __attribute__((device)) void __stcg(T *ptr, T value);
template <class T> __attribute__((device)) void __stcs(T *ptr, T value);
template <class T> __attribute__((device)) void __stwt(T *ptr, T value);
#endif
