// #pragma unroll N becomes #pragma unroll NAME; a pragma without a count,
// or with count 1, is left alone (the input is shared with
// tidy/unroll-factor.cu).
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %inputs/kernels/unroll-pragmas.cu --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %inputs/kernels/unroll-pragmas.cu -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %inputs/refactor/summarize.py < %t/out.json | FileCheck %s --check-prefix=MANIFEST

// CAND:      CAND unroll unrolled value=4 spelling=4 high
// CAND-NEXT:   SITE 9:16 unroll_pragma '4' -> {P}
// CAND-NEXT:   IMPLIES {unroll#0} >= 1
// CAND-NEXT: CAND unroll unrolled value=8 spelling=kUnrollInner high
// CAND-NEXT:   SITE 17:16 unroll_pragma 'kUnrollInner' -> {P}
// CAND-NEXT:   IMPLIES {unroll#1} >= 1
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
