// ktune-block-size on a kernel that reads blockDim: the block size chosen
// on the host (a cap in std::min, typed 1024U) is a launch parameter; the
// fix makes the launcher a template with an unsigned parameter and leaves
// the kernel as it is.
// REQUIRES: clang-tidy, cuda-headers
// RUN: %check_ktune_tidy %s ktune-block-size %t

#include <algorithm>

__global__ void rows(float *x, unsigned d) {
  for (unsigned i = threadIdx.x; i < d; i += blockDim.x)
    x[blockIdx.x * d + i] *= 2.0f;
}
// CHECK-FIXES: __global__ void rows(float *x, unsigned d) {

void launch_rows(float *x, unsigned d, int n) {
  dim3 block(std::min(d, 1024U));
// CHECK-MESSAGES: :[[@LINE-1]]:26: warning: hardcoded block size 1024 in kernel 'rows' (1 site); lift it to a template parameter [ktune-block-size]
// CHECK-MESSAGES: :[[@LINE-2]]:26: note: fix lifts it to template parameter 'BLOCK_SIZE' = 1024
  rows<<<n, block>>>(x, d);
}
// CHECK-FIXES: template <unsigned int BLOCK_SIZE = 1024>
// CHECK-FIXES: void launch_rows(float *x, unsigned d, int n) {
// CHECK-FIXES-NEXT: static_assert(BLOCK_SIZE <= 1024, "ktune: BLOCK_SIZE <= 1024");
// CHECK-FIXES: dim3 block(std::min(d, BLOCK_SIZE));
// CHECK-FIXES: rows<<<n, block>>>(x, d);
// CHECK-FIXES: return launch_rows<1024>(x, d, n);
