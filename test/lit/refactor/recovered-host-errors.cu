// Clang rejects some host code nvcc compiles. When every error lies in a
// host function that is not a kernel, not called from one and launches
// none, the analysis carries on from Clang's recovered AST, with a note
// naming the first error. (The errors here are plain ones, written for the
// test; what matters is where they are.) An error inside a kernel, a
// device function a kernel calls, a launcher, or outside any function
// still refuses the file, saying where.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: FileCheck %s --check-prefix=NOTE < %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: not ktune-refactor %s -o %t/k.cu --extra-arg=-DBREAK_KERNEL 2>&1 | FileCheck %s --check-prefix=KERNEL
// RUN: not ktune-refactor %s -o %t/h.cu --extra-arg=-DBREAK_HELPER 2>&1 | FileCheck %s --check-prefix=HELPER
// RUN: not ktune-refactor %s -o %t/l.cu --extra-arg=-DBREAK_LAUNCHER 2>&1 | FileCheck %s --check-prefix=LAUNCHER
// RUN: not ktune-refactor %s -o %t/g.cu --extra-arg=-DBREAK_GLOBAL 2>&1 | FileCheck %s --check-prefix=GLOBAL
// RUN: not ktune-refactor %s -o %t/n.cu --extra-arg=-DBREAK_NAMED 2>&1 | FileCheck %s --check-prefix=NAMED
// RUN: not test -e %t/k.cu
// RUN: not test -e %t/g.cu

#define BLOCK 256

__device__ float twice(float v) {
#ifdef BREAK_HELPER
  return v * undeclared_in_helper;
#endif
  return 2.0f * v;
}

__global__ void scale(float *x, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
#ifdef BREAK_KERNEL
  x[i] = undeclared_in_kernel;
#endif
  if (i < n)
    x[i] = twice(x[i]);
}

void launch(float *x, int n) {
#ifdef BREAK_LAUNCHER
  undeclared_in_launcher(n);
#endif
  scale<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(x, n);
}

#ifdef BREAK_GLOBAL
undeclared_type global_value;
#endif

// A launch Clang cannot parse leaves only the kernel's name behind.
#ifdef BREAK_NAMED
void retry(float *x, int n) { scale<<<>>>(x, n); }
#endif

// Host code that has nothing to do with the kernel.
static double elapsed_ms() { return host_timer_ticks() / 1000.0; }
void report(int n) { print_summary(n, elapsed_ms()); }

// NOTE: note: {{.*}}recovered-host-errors.cu:[[#@LINE-3]]:37: error: use of undeclared identifier 'host_timer_ticks' [2 errors on the host side, all in host code outside the kernels, the functions they call and their launchers, in device code's bodies on the host side or host code's on the device side, redeclarations of Clang's builtins, or what nvcc does not require (a `template` keyword) or takes (default arguments added out of a class, a specialization for the device of a host and device template): carrying on from Clang's recovered AST]
// NOTE: wrote {{.*}}out.cu and {{.*}}out.json: 1 parameter in 1 kernel
// TPL:      template <int BLOCK_SIZE = 256>
// TPL-NEXT: __global__ void scale(float *x, int n) {
// TPL:        scale<BLOCK_SIZE><<<(n + BLOCK_SIZE - 1) / BLOCK_SIZE, BLOCK_SIZE>>>(x, n);
// TPL:      static double elapsed_ms() { return host_timer_ticks() / 1000.0; }

// KERNEL: recovered-host-errors.cu:33:10: error: use of undeclared identifier 'undeclared_in_kernel'
// KERNEL: ktune-refactor: error: {{.*}}recovered-host-errors.cu: cannot parse ({{[0-9]+}} errors on the device side): {{.*}}recovered-host-errors.cu:33:10: error: use of undeclared identifier 'undeclared_in_kernel' (in kernel 'scale')
// HELPER: ktune-refactor: error: {{.*}}: cannot parse ({{.*}}): {{.*}}recovered-host-errors.cu:25:14: error: use of undeclared identifier 'undeclared_in_helper' (in 'twice', which a kernel calls)
// LAUNCHER: ktune-refactor: error: {{.*}}: cannot parse ({{.*}}): {{.*}}recovered-host-errors.cu:41:3: error: use of undeclared identifier 'undeclared_in_launcher' (in 'launch', which launches a kernel)
// NAMED: ktune-refactor: error: {{.*}}: cannot parse ({{.*}}): {{.*}}recovered-host-errors.cu:52:39: error: expected expression (in 'retry', which names kernel 'scale')
// GLOBAL: ktune-refactor: error: {{.*}}: cannot parse ({{.*}}): {{.*}}recovered-host-errors.cu:47:1: error: unknown type name 'undeclared_type' (outside any function body)
