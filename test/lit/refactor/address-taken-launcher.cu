// A launcher whose address is taken (a Python binding's `m.def("f", &f)`, a
// table of function pointers) must stay one function: a template of its
// name would make `&f` an overload set. Its template takes another name;
// the function keeps its name and signature and forwards to the template
// at the defaults.
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s -o %t/out.cu --verify 2> %t/stderr.txt
// RUN: FileCheck %s --check-prefix=VERIFY < %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %inputs/refactor/summarize.py < %t/out.json | FileCheck %s --check-prefix=MANIFEST

__global__ void scale(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= 2.0f;
}

void launch_scale(float *x, int n) { scale<<<(n + 255) / 256, 256>>>(x, n); }
static void launch_static(float *x, int n) {
  scale<<<(n + 127) / 128, 128>>>(x, n);
}

struct Entry {
  const char *name;
  void (*fn)(float *, int);
};
#define BIND(name) {#name, &name}
const Entry entries[] = {BIND(launch_scale), BIND(launch_static)};

void run_twice(float *x, int n) {
  launch_scale(x, n);
  launch_scale(x, n);
}

// VERIFY: PTX-identical at the defaults
// TPL:      template <int BLOCK_SIZE = 256>
// TPL-NEXT: void [[SCALE:ktune_launch_scale_*]](float *x, int n) {
// TPL:      void launch_scale(float *x, int n) {
// TPL-NEXT:   return [[SCALE]]<256>(x, n);
// TPL:      template <int BLOCK_SIZE_2 = 128>
// TPL-NEXT: static void [[STATIC:ktune_launch_static_*]](float *x, int n) {
// TPL:      static void launch_static(float *x, int n) {
// TPL-NEXT:   return [[STATIC]]<128>(x, n);
// The bindings and the callers reach the original entry points.
// TPL:      const Entry entries[] = {BIND(launch_scale), BIND(launch_static)};
// TPL:      void run_twice(float *x, int n) {
// TPL-NEXT:   launch_scale(x, n);

// The launchers are tuned by the template's name.
// MANIFEST: LAUNCHER ktune_launch_scale{{_*}} returns=void kernels=['scale'] forwarder
// MANIFEST: LAUNCHER ktune_launch_static{{_*}} returns=void kernels=['scale'] forwarder
