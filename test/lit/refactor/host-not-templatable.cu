// Launches in functions that cannot become templates (variadic ones) keep
// the default, with a note; main's body becomes a template main calls
// (main-template.cu); a kernel with C linkage keeps its code (launch lifted). A static function becomes a template without a
// forwarding overload (no symbol to keep). extern "C" hosts: c-linkage.cu.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: FileCheck %s --check-prefix=NOTE < %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %inputs/refactor/summarize.py < %t/out.json | FileCheck %s --check-prefix=MANIFEST

#include <cstdio>

__global__ void work(float *x) { x[blockIdx.x * 64 + threadIdx.x] = 1.0f; }

// main() cannot be a template: its body becomes one, which main calls.
int main() {
  work<<<4, 64>>>(nullptr);
  return 0;
}

// Neither can a variadic one.
void log_entry(float *x, ...) { work<<<4, 64>>>(x); }

// A static function can: it has no symbol to keep, so no forwarder.
static void helper_launch(float *x) { work<<<8, 64>>>(x); }
void run(float *x) { helper_launch(x); }

// A kernel with C linkage cannot become a template: only its launch is lifted.
extern "C" __global__ void c_kernel(float *x) { x[threadIdx.x] = 0.0f; }
void run_c(float *x) { c_kernel<<<1, 128>>>(x); }

// CAND:      CAND block_size work value=64 spelling=64 high
// CAND-NEXT:   SITE 16:49 index_arith '64' -> {P}
// CAND-NEXT:   SITE 20:13 launch_block '64' -> {P}
// CAND-NEXT:   SITE 25:43 launch_block '64' -> {P}
// CAND-NEXT:   SITE 28:49 launch_block '64' -> {P}
// CAND-NEXT:   IMPLIES {block_size#0} <= 1024
// CAND-NEXT: CAND block_size c_kernel value=128 spelling=128 high launch-param
// CAND-NEXT:   SITE 33:38 launch_block '128' -> {P}

// NOTE: note: {{.*}}host-not-templatable.cu:32: kernel c_kernel cannot become a template (it has C linkage (extern "C")): nothing in its code is lifted
// NOTE: note: {{.*}}host-not-templatable.cu:25: the launch of work in log_entry keeps the default configuration: log_entry cannot become a template (it is variadic (no forwarding overload can keep its symbol))

// TPL:      template <int BLOCK_SIZE = 64>
// TPL-NEXT: __global__ void work(float *x) {
// TPL:      template <int BLOCK_SIZE = 64>
// TPL-NEXT: int [[MAIN:ktune_main_*]]() {
// TPL-NEXT:   work<BLOCK_SIZE><<<4, BLOCK_SIZE>>>(nullptr);
// TPL:      int main() {
// TPL-NEXT:   return [[MAIN]]<64>();
// TPL:      void log_entry(float *x, ...) { work<<<4, 64>>>(x); }
// TPL:      template <int BLOCK_SIZE = 64>
// TPL-NEXT: static void helper_launch(float *x) { work<BLOCK_SIZE><<<8, BLOCK_SIZE>>>(x); }
// TPL-NEXT: void run(float *x) { helper_launch(x); }
// TPL-NOT:  return helper_launch
// TPL:      extern "C" __global__ void c_kernel(float *x) { x[threadIdx.x] = 0.0f; }
// TPL-NEXT: template <int BLOCK_SIZE = 128>
// TPL-NEXT: void run_c(float *x) {
// TPL:        c_kernel<<<1, BLOCK_SIZE>>>(x); }

// MANIFEST:      KERNEL work
// MANIFEST:        LAUNCH grid=['4'] block=['BLOCK_SIZE'] smem=0
// MANIFEST:      KERNEL c_kernel
