// Code under #ifdef __CUDA_ARCH__ is only seen by the device-side parse;
// its sites merge with the host side's by offset.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %inputs/refactor/summarize.py < %t/out.json | FileCheck %s --check-prefix=MANIFEST

// Code under __CUDA_ARCH__ is only seen by the device-side parse.
__global__ void arch_kernel(float *x, int n) {
#ifdef __CUDA_ARCH__
  constexpr int kStride = 512;
  for (int i = threadIdx.x; i < n; i += kStride)
    x[i] *= 2.0f;
#else
  (void)x;
  (void)n;
#endif
}

void launch_arch(float *x, int n) { arch_kernel<<<1, 512>>>(x, n); }

// The constexpr exists only on the device side; the launch literal only
// on the host side: one candidate.
// CAND:      CAND block_size arch_kernel value=512 spelling=kStride high
// CAND-NEXT:   SITE 14:27 definition '512' -> {P}
// CAND-NEXT:   SITE 23:54 launch_block '512' -> {P}
// CAND-NEXT:   IMPLIES {block_size#0} <= 1024

// TPL:      template <int BLOCK_SIZE = 512>
// TPL-NEXT: __global__ void arch_kernel(float *x, int n) {
// TPL:      #ifdef __CUDA_ARCH__
// TPL-NEXT:   constexpr int kStride = BLOCK_SIZE;
// TPL-NEXT:   for (int i = threadIdx.x; i < n; i += kStride)
// TPL:      #else
// TPL:      template <int BLOCK_SIZE = 512>
// TPL-NEXT: void launch_arch(float *x, int n) { arch_kernel<BLOCK_SIZE><<<1, BLOCK_SIZE>>>(x, n); }

// MANIFEST: KERNEL arch_kernel
// MANIFEST: LAUNCH grid=['1'] block=['BLOCK_SIZE'] smem=0
