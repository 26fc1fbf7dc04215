// The checks follow a kernel into a header only when clang-tidy's
// --header-filter lets the header through (clang-tidy reports nothing in
// other headers either); the fix then edits the header too.
// REQUIRES: clang-tidy, cuda-headers
// RUN: rm -rf %t && mkdir -p %t && cp -r %inputs/refactor/headers/include %t/include
// RUN: %check_ktune_tidy %s ktune-block-size %t/none --check-suffix=NONE -- -I%t/include
// RUN: %check_ktune_tidy %s ktune-block-size %t/main --header-filter='mylib/' -- -I%t/include
// RUN: FileCheck %s --check-prefix=HEADER < %t/include/mylib/act.cuh

#include <mylib/act.cuh>

void scale(float *out, const float *in, int n, cudaStream_t stream) {
  mylib::scale_kernel<<<(n + 1023) / 1024, 256, 0, stream>>>(out, in, n);
}
// CHECK-MESSAGES: :[[@LINE-2]]:44: warning: hardcoded block size 256 in kernel 'scale_kernel' (3 sites); lift it to a template parameter [ktune-block-size]
// CHECK-MESSAGES: act.cuh:11:35: note: '256' here changes with it (__launch_bounds__)
// CHECK-MESSAGES: act.cuh:13:28: note: '256' here changes with it (index arithmetic)
// CHECK-FIXES: template <int BLOCK_SIZE = 256>
// CHECK-FIXES: mylib::scale_kernel<BLOCK_SIZE><<<(n + 1023) / 1024, BLOCK_SIZE, 0, stream>>>(out, in, n);

// HEADER:      template <int BLOCK_SIZE = 256>
// HEADER-NEXT: #line 11
// HEADER-NEXT: __global__ void __launch_bounds__(BLOCK_SIZE) scale_kernel(
// HEADER:        int base = (blockIdx.x * BLOCK_SIZE + threadIdx.x) * 4;
