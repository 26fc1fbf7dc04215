// ktune-vector-width: 16 / sizeof(T) is a width in bytes shared by kernel
// and host. It is a medium-confidence finding: silent at the default
// MinConfidence (high), reported at medium.
// REQUIRES: clang-tidy, cuda-headers
// RUN: %check_ktune_tidy %s ktune-vector-width %t.default
// RUN: %check_ktune_tidy %s ktune-vector-width %t.medium --check-suffix=MEDIUM \
// RUN:   --config="{CheckOptions: {ktune-vector-width.MinConfidence: medium}}"

template <typename T>
__global__ void copy_vec(T *out, const T *in, int n) {
  constexpr int kVec = 16 / sizeof(T);
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * kVec;
#pragma unroll
  for (int k = 0; k < kVec; ++k)
    if (i + k < n)
      out[i + k] = in[i + k];
}

template <typename T>
void launch(T *out, const T *in, int n) {
  const int vec = 16 / sizeof(T);
  copy_vec<T><<<(n / vec + 127) / 128, 128>>>(out, in, n);
}

void run(float *a, const float *b, int n) { launch(a, b, n); }

// CHECK-MESSAGES-MEDIUM: .cu:11:24: warning: hardcoded vector width 16 in kernel 'copy_vec' (2 sites); lift it to a template parameter [ktune-vector-width]
// CHECK-MESSAGES-MEDIUM: .cu:21:19: note: '16' here changes with it (vector access width)
// CHECK-MESSAGES-MEDIUM: .cu:11:24: note: fix lifts it to template parameter 'VEC' = 16
// CHECK-FIXES-MEDIUM: template <typename T, int VEC = 16>
// CHECK-FIXES-MEDIUM: constexpr int kVec = VEC / sizeof(T);
// CHECK-FIXES-MEDIUM: const int vec = VEC / sizeof(T);
