// #pragma unroll N becomes #pragma unroll NAME; a pragma without a count
// is left alone; unroll 1 (no unrolling, usually meant) is offered at
// medium confidence: lifted when a plan asks, not by the built-in one.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %inputs/refactor/summarize.py < %t/out.json | FileCheck %s --check-prefix=MANIFEST

constexpr int kUnrollInner = 8;

__global__ void unrolled(float *x) {
  float acc = 0.0f;
#pragma unroll 4
  for (int i = 0; i < 64; ++i)
    acc += x[i];
  // No count: left alone.
#pragma unroll
  for (int i = 0; i < 8; ++i)
    acc *= x[i];
  // Through a constant (nvcc does not expand macros in this pragma).
#pragma unroll kUnrollInner
  for (int i = 0; i < 32; ++i)
    acc -= x[i];
  // unroll 1: Clang records it as "unroll disabled", the count kept.
#pragma unroll 1
  for (int i = 0; i < 16; ++i)
    acc += 1.0f;
  x[0] = acc;
}

void launch_unrolled(float *x) { unrolled<<<1, 1>>>(x); }

// CAND:      CAND unroll unrolled value=4 spelling=4 high
// CAND-NEXT:   SITE 16:16 unroll_pragma '4' -> {P}
// CAND-NEXT:   IMPLIES {unroll#0} >= 1
// CAND-NEXT: CAND unroll unrolled value=8 spelling=kUnrollInner high
// CAND-NEXT:   SITE 24:16 unroll_pragma 'kUnrollInner' -> {P}
// CAND-NEXT:   IMPLIES {unroll#1} >= 1
// CAND-NEXT: CAND unroll unrolled value=1 spelling=1 medium
// CAND-NEXT:   SITE 28:16 unroll_pragma '1' -> {P}
// CAND-NEXT:   IMPLIES {unroll#2} >= 1
// CAND-NOT:  CAND

// TPL:      constexpr int kUnrollInner = 8;
// TPL:      template <int UNROLL = 4, int UNROLL_2 = 8>
// TPL-NEXT: __global__ void unrolled(float *x) {
// TPL:      #pragma unroll UNROLL
// TPL-NEXT:   for (int i = 0; i < 64; ++i)
// TPL:      #pragma unroll
// TPL-NEXT:   for (int i = 0; i < 8; ++i)
// TPL:      #pragma unroll UNROLL_2
// TPL-NEXT:   for (int i = 0; i < 32; ++i)
// TPL:      #pragma unroll 1
// TPL-NEXT:   for (int i = 0; i < 16; ++i)

// MANIFEST:      KERNEL unrolled
// MANIFEST-NEXT:   PARAM UNROLL int tunable unroll default=4
// MANIFEST-NEXT:   PARAM UNROLL_2 int tunable unroll default=8
// MANIFEST:        CONSTRAINT UNROLL >= 1
// MANIFEST-NEXT:   CONSTRAINT UNROLL_2 >= 1

