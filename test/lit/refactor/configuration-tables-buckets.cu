// A table of buckets (k-selection, as similarity-search libraries write it):
// each case's queue length is chosen by its own condition (`k <= 64` -> 64
// slots), data; its threads' queue depth is a knob, even where it equals a
// number of an earlier case's condition, which the chain has ruled out.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL

template <int QUEUE, int DEPTH>
__global__ void select_k(float *out, const float *in, int n, int k) {
  float q[DEPTH];
  __shared__ float slots[QUEUE];
  int row = blockIdx.x;
  for (int d = 0; d < DEPTH; ++d)
    q[d] = in[row * n + (threadIdx.x * DEPTH + d) % n];
  for (int s = threadIdx.x; s < QUEUE; s += blockDim.x)
    slots[s] = q[s % DEPTH];
  __syncthreads();
  for (int i = threadIdx.x; i < k && i < QUEUE; i += blockDim.x)
    out[row * k + i] = slots[i];
}

void select(float *out, const float *in, int rows, int n, int k) {
  if (k <= 2) {
    select_k<2, 2><<<rows, 128>>>(out, in, n, k);
  } else if (k <= 64) {
    select_k<64, 3><<<rows, 128>>>(out, in, n, k);
  } else if (k <= 256) {
    select_k<256, 2><<<rows, 128>>>(out, in, n, k);
  } else {
    select_k<1024, 64><<<rows, 128>>>(out, in, n, k);
  }
}

// The first case's depth equals its own condition's number: data.
// CAND-NOT:  SITE 28:{{[0-9]+}} template_arg
// CAND:      CAND other select_k value=3 spelling=3 high
// CAND-NEXT:   SITE 30:18 template_arg '3' -> {P}
// CAND-NEXT:   CASE {{.*}}configuration-tables-buckets.cu:27 #1 when (!((k) <= (2))) && ((k) <= (64))
// The third case's 2 is in the first case's condition only: a knob.
// CAND:      CAND other select_k value=2 spelling=2 high
// CAND-NEXT:   SITE 32:19 template_arg '2' -> {P}
// CAND-NEXT:   CASE {{.*}}configuration-tables-buckets.cu:27 #2 when {{.*}}((k) <= (256))
// The last case's 64 is in the second case's condition only: a knob. (Its
// queue of 1024, which no condition bounds, is a candidate too.)
// CAND:      CAND other select_k value=64 spelling=64 high
// CAND-NEXT:   SITE 34:20 template_arg '64' -> {P}
// CAND-NEXT:   CASE {{.*}}configuration-tables-buckets.cu:27 #3 when
// CAND-NOT:  template_arg

// TPL:      select_k<2, 2><<<rows,
// TPL:      select_k<64, {{[A-Z_0-9]+}}><<<rows,
// TPL:      select_k<256, {{[A-Z_0-9]+}}><<<rows,
