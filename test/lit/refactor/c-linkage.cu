// A host function with C linkage becomes a template inside extern "C++"
// (templates cannot have C linkage); a forwarder keeps the C symbol that
// its other declarations name. A kernel with C linkage keeps its code and
// its name; what its launch spells on the host is lifted.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py | FileCheck %s --check-prefix=CAND
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// [A-Z-]*:' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: FileCheck %s --check-prefix=NOTE < %t/stderr.txt

#define THREADS 192


__global__ void histogram(unsigned *h, const unsigned char *d, int n) {
  for (int i = blockIdx.x * THREADS + threadIdx.x; i < n; i += THREADS * gridDim.x)
    atomicAdd(&h[d[i]], 1u);
}

// Declared in a header as the C entry point, defined with extern "C".
extern "C" void histogram_run(unsigned *h, const unsigned char *d, int n);
extern "C" void histogram_run(unsigned *h, const unsigned char *d, int n) {
  histogram<<<240, THREADS>>>(h, d, n);
}

// Everything in an extern "C" block, the kernel too.
extern "C" {
__global__ void find_k(int *out, int order) {
  if (threadIdx.x < order)
    out[blockIdx.x * order + threadIdx.x] = threadIdx.x;
}

void find_k_wrapper(int *out, int order, int count) {
  int threads = order < 1024 ? order : 1024;
  find_k<<<count, threads>>>(out, order);
}
}

// CAND:      CAND block_size histogram value=192 spelling=THREADS high
// CAND:      CAND block_size find_k value=1024 spelling=1024 high launch-param
// CAND-NEXT:   SITE 34:25 launch_block '1024' -> {P}
// CAND-NEXT:   SITE 34:40 launch_block '1024' -> {P}

// NOTE: kernel find_k cannot become a template (it has C linkage (extern "C")): nothing in its code is lifted

// TPL:      extern "C" void histogram_run(unsigned *h, const unsigned char *d, int n);
// TPL-NEXT: extern "C" extern "C++" {
// TPL-NEXT: template <int BLOCK_SIZE = 192, int GRID_SIZE = 240>
// TPL-NEXT: void histogram_run(unsigned *h, const unsigned char *d, int n) {
// TPL:        histogram<BLOCK_SIZE><<<GRID_SIZE, BLOCK_SIZE>>>(h, d, n);
// TPL-NEXT: }
// TPL-NEXT: }
// TPL-EMPTY:
// TPL-NEXT: // The original entry point: the default configuration.
// TPL-NEXT: extern "C" void histogram_run(unsigned *h, const unsigned char *d, int n) {
// TPL-NEXT:   return histogram_run<192, 240>(h, d, n);
// TPL-NEXT: }

// TPL:      extern "C" {
// TPL-NEXT: __global__ void find_k(int *out, int order) {
// TPL:      extern "C++" {
// TPL-NEXT: template <int BLOCK_SIZE = 1024>
// TPL-NEXT: void find_k_wrapper(int *out, int order, int count) {
// TPL:        int threads = order < BLOCK_SIZE ? order : BLOCK_SIZE;
// TPL-NEXT:   find_k<<<count, threads>>>(out, order);
// TPL-NEXT: }
// TPL-NEXT: }
// TPL-EMPTY:
// TPL-NEXT: // The original entry point: the default configuration.
// TPL-NEXT: extern "C" void find_k_wrapper(int *out, int order, int count) {
// TPL-NEXT:   return find_k_wrapper<1024>(out, order, count);
// TPL-NEXT: }
// TPL-NEXT: }
