// A host launcher template whose own template parameter is its launch's
// block (`template <typename T, int THREADS> void launch(...)` with
// `dim3 block(THREADS)` and `k<THREADS><<<...>>>`), called once with an
// explicit argument (`launch<float, 256>(x, n)`): that argument is the
// constant the launch spells, lifted in the calling function (which becomes
// a template; the launcher and the kernel are unchanged). A launcher called
// from two functions with two different arguments: each call is a launch
// of its own, each argument its caller's parameter
// (launcher-template-calls.cu has more). Refused: a call in an explicit
// specialisation (it cannot become a template: a note).
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2>&1 | FileCheck %s
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX

template <int THREADS> __global__ void scale(float *x, int n) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  if (i < n)
    x[i] *= 2.0f;
}

template <typename T, int THREADS> void launch_scale(T *x, int n) {
  dim3 block(THREADS);
  scale<THREADS><<<(n + THREADS - 1) / THREADS, block>>>(x, n);
}

void run(float *x, int n) { launch_scale<float, 256>(x, n); }

template <int THREADS> __global__ void shift(float *x, int n) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  if (i < n)
    x[i] += 1.0f;
}

template <int THREADS> void launch_shift(float *x, int n) {
  shift<THREADS><<<(n + THREADS - 1) / THREADS, THREADS>>>(x, n);
}

void run_small(float *x, int n) { launch_shift<64>(x, n); }
void run_large(float *x, int n) { launch_shift<512>(x, n); }

template <int THREADS> __global__ void negate(float *x, int n) {
  int i = blockIdx.x * THREADS + threadIdx.x;
  if (i < n)
    x[i] = -x[i];
}

template <int THREADS> void launch_negate(float *x, int n) {
  negate<THREADS><<<(n + THREADS - 1) / THREADS, THREADS>>>(x, n);
}

template <int D> void run_negate(float *x, int n);
template <> void run_negate<1>(float *x, int n) { launch_negate<128>(x, n); }

// CAND:     CAND block_size scale value=256 spelling=256 high launch-param
// CAND-NEXT:  SITE 30:49 launch_block '256' -> {P}
// CAND:     CAND block_size shift value=64 spelling=64 high launch-param
// CAND-NEXT:  SITE 42:48 launch_block '64' -> {P}
// CAND:     CAND block_size shift value=512 spelling=512 high launch-param
// CAND-NEXT:  SITE 43:48 launch_block '512' -> {P}
// CHECK: note: {{.*}}run_negate cannot become a template (it is an explicit specialisation)
// CHECK: wrote {{.*}}out.cu
// TPL:      template <int BLOCK_SIZE = 256>
// TPL-NEXT: void run(float *x, int n) {
// TPL:      launch_scale<float, BLOCK_SIZE>(x, n); }
// TPL:      return run<256>(x, n);
// TPL:      template <int BLOCK_SIZE = 64>
// TPL-NEXT: void run_small(float *x, int n) {
// TPL:      launch_shift<BLOCK_SIZE>(x, n); }
// TPL:      return run_small<64>(x, n);
// TPL:      launch_shift<BLOCK_SIZE_2>(x, n); }
// TPL:      return run_large<512>(x, n);
// TPL:      launch_negate<128>(x, n);
// PTX: ptx-identical: {{[0-9]+}} function(s) identical
// RUN: %python -c "import json,sys; m = json.load(open(sys.argv[1])); k = [k for k in m['kernels'] if k['name'] == 'scale'][0]; print(k['launch']['block'], k['launch']['grid'], m['launchers'][0]['kernels'])" %t/out.json | FileCheck %s --check-prefix=MAN
// MAN: ['BLOCK_SIZE'] ['(n + BLOCK_SIZE - 1) / BLOCK_SIZE'] ['scale']
// The output read again: the forwarding overload's run<256> is no choice.
// RUN: ktune-refactor %t/out.cu --candidates | %python %inputs/refactor/summarize.py | FileCheck %s --check-prefix=AGAIN
// AGAIN-NOT: CAND block_size scale
