// Configuration tables: the host picks a kernel's constants per case and
// passes them as template arguments. Each case's constants are parameters
// of that case (equal values in two cases stay two parameters); the
// candidates and the manifest say when each case is reached, over the
// launcher's parameters. Arguments that the case's condition chooses
// (`n % 8 == 0` -> 8 items, `case 7:` -> 7) or that do not size work are
// data, never knobs.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %inputs/refactor/summarize.py < %t/out.json | FileCheck %s --check-prefix=MANIFEST

template <int BLOCK, int ITEMS>
__global__ void scale(float *out, const float *in, int n) {
  int base = (blockIdx.x * BLOCK + threadIdx.x) * ITEMS;
#pragma unroll
  for (int i = 0; i < ITEMS; ++i)
    if (base + i < n)
      out[base + i] = 2.f * in[base + i];
}

// An if/else-if chain over a size.
void launch(float *out, const float *in, int n, int seqlen) {
  if (seqlen <= 128) {
    scale<32, 4><<<(n + 127) / 128, 32>>>(out, in, n);
  } else if (seqlen <= 512) {
    scale<64, 4><<<(n + 255) / 256, 64>>>(out, in, n);
  } else {
    scale<128, 16><<<(n + 2047) / 2048, 128>>>(out, in, n);
  }
}

// A switch; the default case is reached when no label is.
void launch_switch(float *out, const float *in, int n, int log2_elements) {
  switch (log2_elements) {
  case 7:
    scale<32, 7><<<(n + 223) / 224, 32>>>(out, in, n);
    break;
  case 8:
  case 9:
    scale<64, 2><<<(n + 127) / 128, 64>>>(out, in, n);
    break;
  default:
    scale<128, 2><<<(n + 255) / 256, 128>>>(out, in, n);
    break;
  }
}

// Divisibility picks the items: data, not a knob; the block in each case is.
template <int items> __global__ void twice(float *x, int n) {
  for (int i = 0; i < items; ++i)
    x[(blockIdx.x * 256 + threadIdx.x) * items + i] *= 2.0f;
}
void launch_div(float *x, int n) {
  if (n % 8 == 0)
    twice<8><<<n / 2048, 256>>>(x, n);
  else
    twice<4><<<n / 1024, 256>>>(x, n);
}

// CAND:      CAND block_size scale value=32 spelling=32 high
// CAND-NEXT:   SITE 28:11 template_arg '32' -> {P}
// CAND-NEXT:   SITE 28:37 launch_block '32' -> {P}
// CAND-NEXT:   CASE {{.*}}configuration-tables.cu:27 #0 when (seqlen) <= (128)
// CAND:      CAND items_per_thread scale value=4 spelling=4 high
// CAND-NEXT:   SITE 28:15 template_arg '4' -> {P}
// CAND-NEXT:   CASE {{.*}}configuration-tables.cu:27 #0 when (seqlen) <= (128)
// CAND:      CAND block_size scale value=64 spelling=64 high
// CAND-NEXT:   SITE 30:11 template_arg '64' -> {P}
// CAND-NEXT:   SITE 30:37 launch_block '64' -> {P}
// CAND-NEXT:   CASE {{.*}}configuration-tables.cu:27 #1 when (!((seqlen) <= (128))) && ((seqlen) <= (512))
// CAND:      CAND items_per_thread scale value=4 spelling=4 high
// CAND-NEXT:   SITE 30:15 template_arg '4' -> {P}
// CAND-NEXT:   CASE {{.*}}configuration-tables.cu:27 #1 when (!((seqlen) <= (128))) && ((seqlen) <= (512))
// CAND:      CAND block_size scale value=128 spelling=128 high
// CAND-NEXT:   SITE 32:11 template_arg '128' -> {P}
// CAND-NEXT:   SITE 32:41 launch_block '128' -> {P}
// CAND-NEXT:   CASE {{.*}}configuration-tables.cu:27 #2 when (!((seqlen) <= (128))) && (!((seqlen) <= (512)))
// CAND:      CAND items_per_thread scale value=16 spelling=16 high
// CAND-NEXT:   SITE 32:16 template_arg '16' -> {P}
// CAND-NEXT:   CASE {{.*}}configuration-tables.cu:27 #2 when (!((seqlen) <= (128))) && (!((seqlen) <= (512)))
// CAND:      CAND block_size scale value=32 spelling=32 high
// CAND-NEXT:   SITE 40:11 template_arg '32' -> {P}
// CAND-NEXT:   SITE 40:37 launch_block '32' -> {P}
// CAND-NEXT:   CASE {{.*}}configuration-tables.cu:38 #0 when (log2_elements) == (7)
// CAND:      CAND block_size scale value=64 spelling=64 high
// CAND-NEXT:   SITE 44:11 template_arg '64' -> {P}
// CAND-NEXT:   SITE 44:37 launch_block '64' -> {P}
// CAND-NEXT:   CASE {{.*}}configuration-tables.cu:38 #1 when ((log2_elements) == (8)) || ((log2_elements) == (9))
// CAND:      CAND items_per_thread scale value=2 spelling=2 high
// CAND-NEXT:   SITE 44:15 template_arg '2' -> {P}
// CAND-NEXT:   CASE {{.*}}configuration-tables.cu:38 #1 when ((log2_elements) == (8)) || ((log2_elements) == (9))
// CAND:      CAND block_size scale value=128 spelling=128 high
// CAND-NEXT:   SITE 47:11 template_arg '128' -> {P}
// CAND-NEXT:   SITE 47:38 launch_block '128' -> {P}
// CAND-NEXT:   CASE {{.*}}configuration-tables.cu:38 #2 when ((log2_elements) != (9)) && ((log2_elements) != (8)) && ((log2_elements) != (7))
// CAND:      CAND items_per_thread scale value=2 spelling=2 high
// CAND-NEXT:   SITE 47:16 template_arg '2' -> {P}
// CAND-NEXT:   CASE {{.*}}configuration-tables.cu:38 #2 when ((log2_elements) != (9)) && ((log2_elements) != (8)) && ((log2_elements) != (7))
// CAND:      CAND block_size twice value=256 spelling=256 high launch-param
// CAND-NEXT:   SITE 59:26 launch_block '256' -> {P}
// CAND-NEXT:   CASE {{.*}}configuration-tables.cu:58 #0 when ((n) % (8)) == (0)
// CAND:      CAND block_size twice value=256 spelling=256 high launch-param
// CAND-NEXT:   SITE 61:26 launch_block '256' -> {P}
// CAND-NEXT:   CASE {{.*}}configuration-tables.cu:58 #1 when !(((n) % (8)) == (0))
// CAND-NOT:  CAND

// TPL:      template <int BLOCK_SIZE = 32, int ITEMS_PER_THREAD = 4, int BLOCK_SIZE_2 = 64, int ITEMS_PER_THREAD_2 = 4, int BLOCK_SIZE_3 = 128, int ITEMS_PER_THREAD_3 = 16>
// TPL-NEXT: void launch(float *out, const float *in, int n, int seqlen) {
// TPL-NEXT:   if (seqlen <= 128) {
// TPL-NEXT:     scale<BLOCK_SIZE, ITEMS_PER_THREAD><<<(n + 127) / 128, BLOCK_SIZE>>>(out, in, n);
// TPL:      template <int BLOCK_SIZE_4 = 32, int BLOCK_SIZE_5 = 64, int ITEMS_PER_THREAD_4 = 2, int BLOCK_SIZE_6 = 128, int ITEMS_PER_THREAD_5 = 2>
// TPL-NEXT: void launch_switch(float *out, const float *in, int n, int log2_elements) {
// TPL:          scale<BLOCK_SIZE_4, 7><<<(n + 223) / 224, BLOCK_SIZE_4>>>(out, in, n);
// TPL:      template <int BLOCK_SIZE = 256, int BLOCK_SIZE_2 = 256>
// TPL-NEXT: void launch_div(float *x, int n) {
// TPL:          twice<8><<<n / 2048, BLOCK_SIZE>>>(x, n);
// TPL:          twice<4><<<n / 1024, BLOCK_SIZE_2>>>(x, n);

// Each launcher takes its own cases' parameters, each with its condition.
// MANIFEST:      LAUNCHER launch returns=void kernels=['scale'] forwarder
// MANIFEST-NEXT:   PARAM BLOCK_SIZE int tunable block_size default=32 {{.*}} case=(seqlen) <= (128)
// MANIFEST-NEXT:   PARAM ITEMS_PER_THREAD int tunable items_per_thread default=4 {{.*}} case=(seqlen) <= (128)
// MANIFEST-NEXT:   PARAM BLOCK_SIZE_2 int tunable block_size default=64 {{.*}} case=(!((seqlen) <= (128))) && ((seqlen) <= (512))
// MANIFEST:      LAUNCHER launch_switch
// MANIFEST-NEXT:   PARAM BLOCK_SIZE_4 int tunable block_size default=32 {{.*}} case=(log2_elements) == (7)
// MANIFEST:      LAUNCHER launch_div
// MANIFEST-NEXT:   PARAM BLOCK_SIZE int tunable block_size default=256 {{.*}} case=((n) % (8)) == (0)
// MANIFEST-NEXT:   PARAM BLOCK_SIZE_2 int tunable block_size default=256 {{.*}} case=!(((n) % (8)) == (0))
