// CheckOptions: ParameterNaming (UPPER_CASE, CamelCase, kCamelCase; a name
// taken in the file keeps the default spelling), a global ktune.* option
// for every check, and invalid values reported as configuration errors.
// REQUIRES: clang-tidy, cuda-headers
// RUN: %check_ktune_tidy %s ktune-block-size %t.camel --check-suffix=CAMEL \
// RUN:   --config="{CheckOptions: {ktune-block-size.ParameterNaming: CamelCase}}"
// RUN: %check_ktune_tidy %s ktune-block-size %t.k --check-suffix=K \
// RUN:   --config="{CheckOptions: {ktune.ParameterNaming: kCamelCase}}"
// RUN: echo 'int main() { return 0; }' > %t.bad.cu
// RUN: clang-tidy-19 --load=%ktune_tidy_plugin -checks='-*,ktune-block-size' \
// RUN:   -config="{CheckOptions: {ktune-block-size.ParameterNaming: snake, ktune-block-size.MinConfidence: sure}}" \
// RUN:   %t.bad.cu -- -x cuda --cuda-host-only -nocudainc -nocudalib 2>&1 | FileCheck %s --check-prefix=BAD
// Every check is listed.
// RUN: clang-tidy-19 --load=%ktune_tidy_plugin -checks='-*,ktune-*' --list-checks | FileCheck %s --check-prefix=LIST

__global__ void scale(float *x, int n) {
  for (int i = threadIdx.x; i < n; i += 256)
    x[i] *= 2.0f;
}
void launch_scale(float *x, int n) { scale<<<1, 256>>>(x, n); }

// CHECK-MESSAGES-CAMEL: .cu:17:41: warning: hardcoded block size 256 in kernel 'scale' (2 sites); lift it to a template parameter [ktune-block-size]
// CHECK-MESSAGES-CAMEL: .cu:20:49: note: '256' here changes with it (launch block dimension)
// CHECK-MESSAGES-CAMEL: .cu:17:41: note: fix lifts it to template parameter 'BlockSize' = 256
// CHECK-FIXES-CAMEL: template <int BlockSize = 256>
// CHECK-FIXES-CAMEL: for (int i = threadIdx.x; i < n; i += BlockSize)
// CHECK-FIXES-CAMEL: scale<BlockSize><<<1, BlockSize>>>(x, n);

// CHECK-MESSAGES-K: .cu:17:41: warning: hardcoded block size 256
// CHECK-MESSAGES-K: .cu:20:49: note:
// CHECK-MESSAGES-K: .cu:17:41: note: fix lifts it to template parameter 'kBlockSize' = 256
// CHECK-FIXES-K: template <int kBlockSize = 256>
// CHECK-FIXES-K: scale<kBlockSize><<<1, kBlockSize>>>(x, n);

// BAD: warning: invalid MinConfidence 'sure' for ktune-block-size: expected high, medium or low
// BAD: warning: invalid ParameterNaming 'snake' for ktune-block-size: expected UPPER_CASE, CamelCase or kCamelCase

// LIST: ktune-block-size
// LIST-NEXT: ktune-grid-size
// LIST-NEXT: ktune-items-per-thread
// LIST-NEXT: ktune-tile-size
// LIST-NEXT: ktune-unroll-factor
// LIST-NEXT: ktune-vector-width
// LIST-NEXT: ktune-warps-per-block
