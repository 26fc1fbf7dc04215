// Host and device passes: a parameter the host pass sees is reported only
// there; one whose sites all lie under #if __CUDA_ARCH__ only in the device
// pass. Running both passes therefore never reports one thing twice.
// REQUIRES: clang-tidy, cuda-headers
// RUN: %check_ktune_tidy %s 'ktune-*' %t.host --check-suffix=HOST
// RUN: %check_ktune_tidy %s 'ktune-*' %t.device --side=device --check-suffix=DEVICE
// The device pass reports everything with DevicePassReportsAll.
// RUN: %check_ktune_tidy %s 'ktune-*' %t.all --side=device --check-suffix=ALL --no-compile \
// RUN:   --config="{CheckOptions: {ktune.DevicePassReportsAll: true}}"

__global__ void scale(float *x, int n) {
  for (int i = threadIdx.x; i < n; i += 256)
    x[i] *= 2.0f;
}
void launch_scale(float *x, int n) { scale<<<1, 256>>>(x, n); }

__global__ void reduce_arch(float *x) {
  float acc = 0.0f;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#pragma unroll 4
  for (int i = 0; i < 64; ++i)
    acc += x[i];
#endif
  x[0] = acc;
}
void launch_reduce(float *x) { reduce_arch<<<1, 32>>>(x); }

// CHECK-MESSAGES-HOST: .cu:12:41: warning: hardcoded block size 256 in kernel 'scale' (2 sites); lift it to a template parameter [ktune-block-size]
// CHECK-MESSAGES-HOST: .cu:15:49: note: '256' here changes with it (launch block dimension)
// CHECK-MESSAGES-HOST: .cu:12:41: note: fix lifts it to template parameter 'BLOCK_SIZE' = 256
// CHECK-MESSAGES-HOST: .cu:26:49: warning: hardcoded block size 32 in kernel 'reduce_arch' (1 site); lift it to a template parameter [ktune-block-size]
// CHECK-MESSAGES-HOST: .cu:26:49: note: fix lifts it to template parameter 'BLOCK_SIZE' = 32
// CHECK-FIXES-HOST: for (int i = threadIdx.x; i < n; i += BLOCK_SIZE)
// CHECK-FIXES-HOST: #pragma unroll 4
// reduce_arch reads nothing of its block size: a launch parameter.
// CHECK-FIXES-HOST: reduce_arch<<<1, BLOCK_SIZE>>>(x); }

// CHECK-MESSAGES-DEVICE: .cu:20:16: warning: hardcoded unroll factor 4 in kernel 'reduce_arch' (1 site); lift it to a template parameter [ktune-unroll-factor]
// CHECK-MESSAGES-DEVICE: .cu:20:16: note: fix lifts it to template parameter 'UNROLL' = 4
// CHECK-FIXES-DEVICE: for (int i = threadIdx.x; i < n; i += 256)
// CHECK-FIXES-DEVICE: #pragma unroll UNROLL
// CHECK-FIXES-DEVICE: reduce_arch<UNROLL><<<1, 32>>>(x); }

// CHECK-MESSAGES-ALL: .cu:12:41: warning: hardcoded block size 256 in kernel 'scale'
// CHECK-MESSAGES-ALL: .cu:15:49: note:
// CHECK-MESSAGES-ALL: .cu:12:41: note: fix lifts it
// CHECK-MESSAGES-ALL: .cu:20:16: warning: hardcoded unroll factor 4 in kernel 'reduce_arch'
// CHECK-MESSAGES-ALL: .cu:20:16: note: fix lifts it to template parameter 'UNROLL' = 4, together with 'BLOCK_SIZE'
// CHECK-MESSAGES-ALL: .cu:26:49: warning: hardcoded block size 32 in kernel 'reduce_arch'
// CHECK-MESSAGES-ALL: .cu:26:49: note: the fix for 'UNROLL' also lifts this one to template parameter 'BLOCK_SIZE' = 32
// CHECK-FIXES-ALL: template <int UNROLL = 4, int BLOCK_SIZE = 32>
