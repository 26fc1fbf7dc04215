// Code written for nvcc's two passes: attributes that exist only where
// __CUDA_ARCH__ is defined (cudaKDTree's `__both__`), so that on the host
// side a kernel calls a host function, and a specialization for the device
// of a host and device template. nvcc's host pass never compiles a kernel's
// body, and takes the specialization; the analysis carries on past both,
// with a note. An error in a kernel on the device side still refuses the
// file.
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates 2>%t/cands-stderr.txt | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: FileCheck %s --check-prefix=NOTE < %t/stderr.txt
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX
// RUN: not ktune-refactor %s -o %t/k.cu --extra-arg=-DBREAK_KERNEL 2>&1 | FileCheck %s --check-prefix=KERNEL
// RUN: not test -e %t/k.cu

#if defined(__CUDA_ARCH__)
#define BOTH __host__ __device__
#else
#define BOTH
#endif

BOTH inline int first_on_level(int L) { return (1 << L) - 1; }

template <typename T> BOTH inline float as_float_rz(T t);
template <> BOTH inline float as_float_rz(float f) { return f; }
#ifdef __CUDA_ARCH__
template <> inline __device__ float as_float_rz(int i) {
  return __int2float_rz(i);
}
#endif

__global__ void level(float *out, int L, int n) {
  int i = blockIdx.x * 128 + threadIdx.x;
#ifdef BREAK_KERNEL
  out[i] = undeclared_in_kernel;
#endif
  if (i < n)
    out[i] = as_float_rz(first_on_level(L) + i);
}

void run(float *out, int L, int n) {
  level<<<(n + 127) / 128, 128>>>(out, L, n);
}

// CAND:      CAND block_size level value=128 spelling=128 high
// CAND-NEXT:   SITE 35:24 index_arith '128' -> {P}

// NOTE: error: no matching function for call to 'first_on_level' [{{[0-9]+}} errors on the host side, all in host code outside the kernels, the functions they call and their launchers, in device code's bodies on the host side
// NOTE: wrote

// PTX: identical

// KERNEL: cannot parse ({{.*}}device side): {{.*}}undeclared identifier 'undeclared_in_kernel' (in kernel 'level')
