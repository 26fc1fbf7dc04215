// An object-like macro defined from others (the CUDA samples' histogram:
// `#define THREADBLOCK_SIZE (WARP_COUNT * WARP_SIZE)`): each use is a site
// of its base, a macro defined as one literal, spelled as the body with the
// base replaced; the launch geometry in the manifest is the value it
// computes. With two such bases it is a candidate of its own, tied to them
// by an implied constraint, lifted with them and given the values the
// relation allows. The warp size (fixed by the hardware) and macros defined
// from others are no bases.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates 2>/dev/null | %python %inputs/refactor/summarize.py | FileCheck %s --check-prefix=CAND
// RUN: ktune-refactor %s -o %t/out.cu
// RUN: grep -v -e '^// [A-Z-]*:' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %inputs/refactor/summarize.py < %t/out.json | FileCheck %s --check-prefix=MANIFEST

#define LOG2_WARP_SIZE 5U
#define WARP_SIZE (1U << LOG2_WARP_SIZE)
#define BIN_COUNT 256
#define WARP_COUNT 6
#define THREADBLOCK_SIZE (WARP_COUNT * WARP_SIZE)
#define THREADBLOCK_MEMORY (WARP_COUNT * BIN_COUNT)
#define SCALE_BASE 3
#define SCALE (SCALE_BASE + 1)
#define SCALED_ROWS (SCALE * 8)


typedef unsigned int uint;

__global__ void hist(uint *out, const uint *in, uint n) {
  __shared__ uint s_Hist[THREADBLOCK_MEMORY];
  for (uint i = 0; i < (THREADBLOCK_MEMORY / THREADBLOCK_SIZE); i++)
    s_Hist[threadIdx.x + i * THREADBLOCK_SIZE] = 0;
  __syncthreads();
  uint *warpHist = s_Hist + (threadIdx.x >> LOG2_WARP_SIZE) * BIN_COUNT;
  for (uint pos = blockIdx.x * blockDim.x + threadIdx.x; pos < n;
       pos += blockDim.x * gridDim.x)
    atomicAdd(warpHist + (in[pos] & 255), 1);
  __syncthreads();
  for (uint bin = threadIdx.x; bin < BIN_COUNT; bin += THREADBLOCK_SIZE) {
    uint sum = 0;
    for (uint i = 0; i < WARP_COUNT; i++)
      sum += s_Hist[bin + i * BIN_COUNT];
    out[blockIdx.x * BIN_COUNT + bin] = sum;
  }
}

void run(uint *out, const uint *in, uint n) {
  hist<<<240, THREADBLOCK_SIZE>>>(out, in, n);
}

// A macro over a macro that is itself computed: SCALE is no base of
// SCALED_ROWS, so SCALED_ROWS is a constant of its own.
__global__ void rows(float *x) {
  __shared__ float t[SCALED_ROWS];
  t[threadIdx.x % SCALED_ROWS] = x[threadIdx.x];
  x[threadIdx.x] = t[(threadIdx.x + 1) % SCALED_ROWS];
}
void run_rows(float *x) { rows<<<1, 128>>>(x); }

// CAND:      CAND other hist value=1536 spelling=THREADBLOCK_MEMORY medium
// CAND-NEXT:   SITE 30:26 shared_extent 'THREADBLOCK_MEMORY' -> {P}
// CAND-NEXT:   SITE 31:25 other 'THREADBLOCK_MEMORY' -> {P}
// CAND:        IMPLIES {other#0} == {warps_per_block#1} * {other#2}
// CAND:      CAND warps_per_block hist value=6 spelling=WARP_COUNT high
// CAND-NEXT:   SITE 31:46 other 'THREADBLOCK_SIZE' -> static_cast<unsigned int>({P} * WARP_SIZE)
// CAND-NEXT:   SITE 32:30 other 'THREADBLOCK_SIZE' -> static_cast<unsigned int>({P} * WARP_SIZE)
// CAND-NEXT:   SITE 39:56 loop_stride 'THREADBLOCK_SIZE' -> static_cast<unsigned int>({P} * WARP_SIZE)
// CAND-NEXT:   SITE 41:26 loop_bound 'WARP_COUNT' -> {P}
// CAND-NEXT:   SITE 48:15 launch_block 'THREADBLOCK_SIZE' -> static_cast<unsigned int>({P} * WARP_SIZE)
// CAND:      CAND other hist value=256 spelling=BIN_COUNT medium
// CAND:      CAND {{[a-z_]+}} rows value=32 spelling=SCALED_ROWS
// CAND-NEXT:   SITE 54:22 shared_extent 'SCALED_ROWS' -> {P}
// CAND-NOT:  SCALE_BASE

// TPL:      template <int HIST_THREADBLOCK_MEMORY = 1536, int WARPS_PER_BLOCK = 6>
// TPL-NEXT: __global__ void hist(uint *out, const uint *in, uint n) {
// TPL:        static_assert(HIST_THREADBLOCK_MEMORY == (WARPS_PER_BLOCK * 256), "ktune: HIST_THREADBLOCK_MEMORY == WARPS_PER_BLOCK * 256");
// TPL-NEXT:   __shared__ uint s_Hist[HIST_THREADBLOCK_MEMORY];
// TPL-NEXT:   for (uint i = 0; i < (HIST_THREADBLOCK_MEMORY / static_cast<unsigned int>(WARPS_PER_BLOCK * WARP_SIZE)); i++)
// TPL:          for (uint i = 0; i < WARPS_PER_BLOCK; i++)
// TPL:        hist<HIST_THREADBLOCK_MEMORY, WARPS_PER_BLOCK><<<240, static_cast<unsigned int>(WARPS_PER_BLOCK * WARP_SIZE)>>>(out, in, n);

// MANIFEST:      KERNEL hist
// MANIFEST-NEXT:   PARAM HIST_THREADBLOCK_MEMORY int tunable other default=1536 domain=[256,512,1024,1536,2048,4096,8192]
// MANIFEST-NEXT:   PARAM WARPS_PER_BLOCK int tunable warps_per_block default=6 domain=[1,2,4,6,8,16,32]
// MANIFEST:        CONSTRAINT HIST_THREADBLOCK_MEMORY == WARPS_PER_BLOCK * 256
// MANIFEST:        LAUNCH grid=['240'] block=['WARPS_PER_BLOCK * 32'] smem=0
