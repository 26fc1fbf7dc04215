// Counts of 1 are settings of their own: `#pragma unroll 1` (no unrolling)
// and a launch bound's minimum blocks per SM of 1 (no register cap). Both
// are offered at medium confidence (kept by the built-in plan, as the
// engineer chose them); a plan lifts them like any other, PTX-identical
// at the defaults (--verify).
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates > %t/cands.json
// RUN: %python %inputs/refactor/summarize.py < %t/cands.json > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s --emit-plan %t/plan.json
// RUN: %python -c "import json,sys; p=json.load(open(sys.argv[1])); c=json.load(open(sys.argv[2]))['candidates']; ps=p['kernels'][0]['params']; ps.append(dict(candidates=[x['id'] for x in c if x['kind'] == 'min_blocks'], default=1, kind='min_blocks', name='MIN_BLOCKS', values=[1, 2, 4])); ps.append(dict(candidates=[x['id'] for x in c if x['kind'] == 'unroll'], default=1, kind='unroll', name='UNROLL', values=[1, 2, 4])); json.dump(p, open(sys.argv[1], 'w'))" %t/plan.json %t/cands.json
// RUN: ktune-refactor %s --plan %t/plan.json -o %t/out.cu --verify 2> %t/stderr.txt
// RUN: FileCheck %s --check-prefix=NOTE < %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL

__global__ void __launch_bounds__(64, 1) capped(float *x, int n) {
#pragma unroll 1
  for (int i = 0; i < n; ++i)
    x[(blockIdx.x * n + i) * 64 + threadIdx.x] *= 2.0f;
}

void launch_capped(float *x, int n) { capped<<<8, 64>>>(x, n); }

// CAND:      CAND block_size capped value=64 spelling=64 high
// CAND:      CAND min_blocks capped value=1 spelling=1 medium
// CAND-NEXT:   SITE [[#@LINE-10]]:39 launch_bounds_min_blocks '1' -> {P}
// CAND:      CAND unroll capped value=1 spelling=1 medium
// CAND-NEXT:   SITE [[#@LINE-11]]:16 unroll_pragma '1' -> {P}

// NOTE: PTX-identical at the defaults

// TPL:      template <int BLOCK_SIZE = 64, int MIN_BLOCKS = 1, int UNROLL = 1>
// TPL-NEXT: __global__ void __launch_bounds__(BLOCK_SIZE, MIN_BLOCKS) capped(float *x, int n) {
// TPL:      #pragma unroll UNROLL
