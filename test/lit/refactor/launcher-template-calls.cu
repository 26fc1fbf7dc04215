// A host launcher template called with explicit arguments from several
// places: `if (b <= 4) launch<float, 256, 8>(...); else launch<float, 128,
// 16>(...);` is a configuration table whose cases are the calls, and two
// functions calling it once each are two launches. Each call's arguments
// for the launcher's parameters that size the launch or are passed on as
// the kernel's template arguments are that call's sites, lifted in the
// caller (the launcher and the kernel keep their parameters); a constant
// of the kernel's own code reaches every caller through the launcher.
// Refused: a call in an explicit specialisation (a note), and an argument
// choosing behaviour (a bool).
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2>&1 | FileCheck %s
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX
// Another configuration compiles: the small case at 64 threads, groups of 4.
// RUN: printf '#include "%t/out.cu"\ntemplate void run_table<64, 4>(float *, const float *, int, int);\n' > %t/other.cu
// RUN: %nvcc -std=c++17 -arch=sm_90 -c %t/other.cu -o %t/other.o

template <typename T, int THREADS, int GROUP, bool SQUARE>
__global__ void group_sum(T *out, const T *in, int n) {
  __shared__ T partial[THREADS / GROUP];
  int i = blockIdx.x * THREADS + threadIdx.x;
  T v = i < n ? in[i] : T(0);
  if (SQUARE)
    v *= v;
  if (threadIdx.x % GROUP == 0)
    partial[threadIdx.x / GROUP] = 0;
  __syncthreads();
  atomicAdd(&partial[threadIdx.x / GROUP], v);
  __syncthreads();
  T acc = 0;
#pragma unroll 4
  for (int k = 0; k < THREADS / GROUP; ++k)
    acc += partial[k];
  if (i < n)
    out[i] = acc;
}

template <typename T, int THREADS, int GROUP, bool SQUARE = false>
void launch_group_sum(T *out, const T *in, int n) {
  dim3 block(THREADS);
  dim3 grid((n + THREADS - 1) / THREADS);
  group_sum<T, THREADS, GROUP, SQUARE><<<grid, block>>>(out, in, n);
}

void run_table(float *out, const float *in, int n, int b) {
  if (b <= 4)
    launch_group_sum<float, 256, 8>(out, in, n);
  else
    launch_group_sum<float, 128, 16>(out, in, n);
}

void run_squares(float *out, const float *in, int n) {
  launch_group_sum<float, 512, 32, true>(out, in, n);
}

template <int D> void run_spec(float *out, const float *in, int n);
template <> void run_spec<1>(float *out, const float *in, int n) {
  launch_group_sum<float, 1024, 4>(out, in, n);
}

// CAND:     CAND unroll group_sum value=4
// CAND:     CAND block_size group_sum value=256 spelling=256 high launch-param
// CAND-NEXT:  SITE 51:29 launch_block '256' -> {P}
// CAND-NEXT:  CASE {{.*}}:50 #0 when (b) <= (4)
// CAND:     CAND other group_sum value=8 spelling=8 high
// CAND-NEXT:  SITE 51:34 template_arg '8' -> {P}
// CAND-NEXT:  CASE {{.*}}:50 #0 when (b) <= (4)
// CAND:     CAND block_size group_sum value=128 spelling=128 high launch-param
// CAND-NEXT:  SITE 53:29 launch_block '128' -> {P}
// CAND-NEXT:  CASE {{.*}}:50 #1 when !((b) <= (4))
// CAND:     CAND other group_sum value=16 spelling=16 high
// CAND-NEXT:  SITE 53:34 template_arg '16' -> {P}
// CAND:     CAND block_size group_sum value=512 spelling=512 high launch-param
// CAND-NEXT:  SITE 57:27 launch_block '512' -> {P}
// CAND-NOT: template_arg 'true'
// CHECK: note: {{.*}}:62: the launch of group_sum in run_spec keeps the default configuration: run_spec cannot become a template (it is an explicit specialisation)
// CHECK: wrote {{.*}}out.cu
// TPL:      template <typename T, int THREADS, int GROUP, bool SQUARE = false, int UNROLL = 4>
// TPL-NEXT: void launch_group_sum(
// TPL:      group_sum<T, THREADS, GROUP, SQUARE, UNROLL><<<grid, block>>>(out, in, n);
// TPL:      template <int BLOCK_SIZE = 256, int PARAM = 8, int BLOCK_SIZE_2 = 128, int PARAM_2 = 16, int UNROLL = 4>
// TPL-NEXT: void run_table(
// TPL:      launch_group_sum<float, BLOCK_SIZE, PARAM, false, UNROLL>(out, in, n);
// TPL:      launch_group_sum<float, BLOCK_SIZE_2, PARAM_2, false, UNROLL>(out, in, n);
// TPL:      return run_table<256, 8, 128, 16, 4>(out, in, n, b);
// TPL:      template <int BLOCK_SIZE_3 = 512, int UNROLL = 4>
// TPL-NEXT: void run_squares(
// TPL:      launch_group_sum<float, BLOCK_SIZE_3, 32, true, UNROLL>(out, in, n);
// TPL:      template <> void run_spec<1>(float *out, const float *in, int n) {
// TPL-NEXT:   launch_group_sum<float, 1024, 4>(out, in, n);
// PTX: ptx-identical: 4 function(s) identical
// The manifest's configuration table: each case's parameters with its condition.
// RUN: %python -c "import json,sys; m = json.load(open(sys.argv[1])); print(sorted((p['name'], p.get('case', '-')) for k in m['kernels'] for p in k.get('template_params', []) + k.get('launch_params', []) if p.get('tunable')))" %t/out.json | FileCheck %s --check-prefix=MAN
// MAN: ('BLOCK_SIZE', '(b) <= (4)')
// MAN-SAME: ('BLOCK_SIZE_2', '!((b) <= (4))')
// MAN-SAME: ('BLOCK_SIZE_3', '-')
// A parameter whose launcher kept its value (run_spec) leaves no constraint.
// RUN: %python -c "import json,sys; m = json.load(open(sys.argv[1])); print(m['kernels'][0]['constraints'])" %t/out.json | FileCheck %s --check-prefix=CONSTR
// CONSTR: 'BLOCK_SIZE_3 <= 1024']
