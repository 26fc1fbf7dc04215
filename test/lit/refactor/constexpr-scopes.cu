// Constants at every scope: a local constexpr is rewritten at its definition
// (its uses stay); namespace- and class-scope constants at their uses in the
// kernel and the launch; a host local that is never written is a constant.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %inputs/refactor/summarize.py < %t/out.json | FileCheck %s --check-prefix=MANIFEST

constexpr int kNamespaceThreads = 128;

struct Config {
  static constexpr int kItemsPerThread = 4;
};

__global__ void scopes(float *x, int n) {
  // Local: the definition is the site, the uses stay.
  constexpr int kUnrollFactor = 2;
  float acc[Config::kItemsPerThread];
  for (int k = 0; k < Config::kItemsPerThread; ++k)
    acc[k] = x[threadIdx.x * Config::kItemsPerThread + k];
#pragma unroll kUnrollFactor
  for (int k = 0; k < Config::kItemsPerThread; ++k)
    x[blockIdx.x * kNamespaceThreads + threadIdx.x] += acc[k];
  (void)n;
}

void launch(float *x, int n) {
  // A host local that is never written is read as a constant.
  int threads = kNamespaceThreads;
  scopes<<<(n + threads - 1) / threads, threads>>>(x, n);
}

// CAND:      CAND unroll scopes value=2 spelling=kUnrollFactor high
// CAND-NEXT:   SITE 20:33 definition '2' -> {P}
// CAND-NEXT:   IMPLIES {unroll#0} >= 1
// CAND-NEXT: CAND items_per_thread scopes value=4 spelling=kItemsPerThread high
// CAND-NEXT:   SITE 21:13 register_array 'Config::kItemsPerThread' -> {P}
// CAND-NEXT:   SITE 22:23 loop_bound 'Config::kItemsPerThread' -> {P}
// CAND-NEXT:   SITE 23:30 other 'Config::kItemsPerThread' -> {P}
// CAND-NEXT:   SITE 25:23 loop_bound 'Config::kItemsPerThread' -> {P}
// CAND-NEXT: CAND block_size scopes value=128 spelling=kNamespaceThreads high
// CAND-NEXT:   SITE 26:20 index_arith 'kNamespaceThreads' -> {P}
// CAND-NEXT:   SITE 32:17 launch_block 'kNamespaceThreads' -> {P}
// CAND-NEXT:   IMPLIES {block_size#2} <= 1024

// TPL:      constexpr int kNamespaceThreads = 128;
// TPL:        static constexpr int kItemsPerThread = 4;
// TPL:      template <int UNROLL = 2, int ITEMS_PER_THREAD = 4, int BLOCK_SIZE = 128>
// TPL-NEXT: __global__ void scopes(float *x, int n) {
// TPL:        constexpr int kUnrollFactor = UNROLL;
// TPL-NEXT:   float acc[ITEMS_PER_THREAD];
// TPL-NEXT:   for (int k = 0; k < ITEMS_PER_THREAD; ++k)
// TPL-NEXT:     acc[k] = x[threadIdx.x * ITEMS_PER_THREAD + k];
// TPL-NEXT: #pragma unroll kUnrollFactor
// TPL-NEXT:   for (int k = 0; k < ITEMS_PER_THREAD; ++k)
// TPL-NEXT:     x[blockIdx.x * BLOCK_SIZE + threadIdx.x] += acc[k];
// TPL:        int threads = BLOCK_SIZE;
// TPL-NEXT:   scopes<UNROLL, ITEMS_PER_THREAD, BLOCK_SIZE><<<(n + threads - 1) / threads, threads>>>(x, n);

// MANIFEST: LAUNCH grid=['(n + BLOCK_SIZE - 1) / BLOCK_SIZE'] block=['BLOCK_SIZE'] smem=0
