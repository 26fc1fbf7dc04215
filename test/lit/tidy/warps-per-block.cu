// ktune-warps-per-block: a named warp count that sets the block size
// (kNumWarps * 32) and the per-warp shared array.
// REQUIRES: clang-tidy, cuda-headers
// RUN: %check_ktune_tidy %s ktune-warps-per-block %t

constexpr int kNumWarps = 4;

__global__ void warp_sums(const float *in, float *out) {
  __shared__ float per_warp[kNumWarps];
  float v = in[blockIdx.x * kNumWarps * 32 + threadIdx.x];
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffff, v, offset);
  if (threadIdx.x % 32 == 0)
    per_warp[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0.0f;
    for (int w = 0; w < kNumWarps; ++w)
      s += per_warp[w];
    out[blockIdx.x] = s;
  }
}

void launch(const float *in, float *out, int blocks) {
  warp_sums<<<blocks, kNumWarps * 32>>>(in, out);
}

// CHECK-MESSAGES: .cu:9:29: warning: hardcoded warps per block 4 in kernel 'warp_sums' (4 sites); lift it to a template parameter [ktune-warps-per-block]
// CHECK-MESSAGES: .cu:10:29: note: 'kNumWarps' here changes with it (index arithmetic)
// CHECK-MESSAGES: .cu:18:25: note: 'kNumWarps' here changes with it (loop bound)
// CHECK-MESSAGES: .cu:25:23: note: 'kNumWarps' here changes with it (launch block dimension)
// CHECK-MESSAGES: .cu:9:29: note: fix lifts it to template parameter 'WARPS_PER_BLOCK' = 4
// The constant's definition stays for other users; the kernel uses the parameter.
// CHECK-FIXES: constexpr int kNumWarps = 4;
// CHECK-FIXES: template <int WARPS_PER_BLOCK = 4>
// CHECK-FIXES: __shared__ float per_warp[WARPS_PER_BLOCK];
// CHECK-FIXES: for (int w = 0; w < WARPS_PER_BLOCK; ++w)
// CHECK-FIXES: warp_sums<WARPS_PER_BLOCK><<<blocks, WARPS_PER_BLOCK * 32>>>(in, out);
