// Configuration types: a project's class template whose parameters are
// named for what they size (`TileConfig<float, 4, 32, 2>`), passed to a
// launcher template or a kernel as a template argument, spelled at the call
// or by a typedef or alias of the calling function. Each integer argument
// for a parameter named like a knob is a site of the caller, one parameter
// per launch (a configuration table's case keeps its condition); an
// argument a launch's block spells too joins that block. Not lifted: bool
// arguments, parameters named like no knob (kMinOccupancy_, kRank_), a
// configuration typedef'd outside the calling function, and a library's
// class templates.
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2>&1 | FileCheck %s
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX
// Another configuration compiles: larger tiles in the first case.
// RUN: printf '#include "%t/out.cu"\ntemplate cudaError_t scale_table<8, 64, 4, 2, 32, 256, 2>(float *, const float *, int, int, cudaStream_t);\n' > %t/other.cu
// RUN: %nvcc -std=c++17 -arch=sm_90 -c %t/other.cu -o %t/other.o

#include <cuda_runtime.h>

// A project's tile configuration: its parameters are named for what they size.
template <typename T, int kBlockItemsY_, int kBlockWidth_, int kResidueUnroll_ = 4,
          bool kPredicated_ = true, int kMinOccupancy_ = 8>
struct TileConfig {
  typedef T Value;
  static constexpr int kBlockItemsY = kBlockItemsY_;
  static constexpr int kBlockWidth = kBlockWidth_;
  static constexpr int kResidueUnroll = kResidueUnroll_;
  static constexpr bool kPredicated = kPredicated_;
};

template <typename Config>
__global__ void tile_scale(typename Config::Value *out,
                           const typename Config::Value *in, int n, int m) {
  int row = blockIdx.x * Config::kBlockItemsY + threadIdx.y;
  if (row >= n)
    return;
  for (int c = threadIdx.x; c < m; c += Config::kBlockWidth * Config::kResidueUnroll) {
#pragma unroll
    for (int u = 0; u < Config::kResidueUnroll; ++u) {
      int col = c + u * Config::kBlockWidth;
      if (!Config::kPredicated || col < m)
        out[row * m + col] = in[row * m + col] * 2;
    }
  }
}

template <typename Config>
cudaError_t launch_tile(typename Config::Value *out,
                        const typename Config::Value *in, int n, int m,
                        cudaStream_t s) {
  dim3 block(Config::kBlockWidth, Config::kBlockItemsY);
  dim3 grid((n + Config::kBlockItemsY - 1) / Config::kBlockItemsY);
  tile_scale<Config><<<grid, block, 0, s>>>(out, in, n, m);
  return cudaGetLastError();
}

cudaError_t scale_table(float *out, const float *in, int n, int m,
                        cudaStream_t s) {
  if (m <= 64) {
    typedef TileConfig<float, 4, 32, 2> Config;
    return launch_tile<Config>(out, in, n, m, s);
  } else if (m <= 1024) {
    using Config = TileConfig<float, 2, 64>;
    return launch_tile<Config>(out, in, n, m, s);
  }
  return launch_tile<TileConfig<float, 1, 128, 4, true, 4>>(out, in, n, m, s);
}

// One launch, its configuration spelled at the launch with the block.
void scale_direct(float *out, const float *in, int n, int m) {
  tile_scale<TileConfig<float, 8, 16>><<<(n + 7) / 8, dim3(16, 8)>>>(out, in, n, m);
}

// Kept: a configuration named outside the calling function, and one whose
// parameter is named like no knob.
typedef TileConfig<float, 2, 256> SharedConfig;
template <int kRank_> struct Layout { static constexpr int kRank = kRank_; };

template <typename L>
__global__ void fill_rank(float *out) { out[threadIdx.x] = L::kRank; }

void kept(float *out, const float *in, int n, int m, cudaStream_t s) {
  launch_tile<SharedConfig>(out, in, n, m, s);
  fill_rank<Layout<3>><<<1, 64>>>(out);
}

// CAND:      CAND items_per_thread tile_scale value=4 spelling=4 high launch-param
// CAND-NEXT:   SITE 64:31 template_arg '4' -> {P}
// CAND-NEXT:   CASE {{.*}}:63 #0 when (m) <= (64)
// CAND:      CAND block_size tile_scale value=32 spelling=32 high launch-param
// CAND-NEXT:   SITE 64:34 template_arg '32' -> {P}
// CAND-NEXT:   CASE {{.*}}:63 #0 when (m) <= (64)
// CAND:      CAND unroll tile_scale value=2 spelling=2 high launch-param
// CAND-NEXT:   SITE 64:38 template_arg '2' -> {P}
// CAND:      CAND block_size tile_scale value=64 spelling=64 high launch-param
// CAND-NEXT:   SITE 67:41 template_arg '64' -> {P}
// CAND-NEXT:   CASE {{.*}}:63 #1 when (!((m) <= (64))) && ((m) <= (1024))
// CAND:      CAND items_per_thread tile_scale value=8 spelling=8 high launch-param
// CAND-NEXT:   SITE 75:32 template_arg '8' -> {P}
// CAND-NEXT:   SITE 75:47 launch_grid '7' -> {P} - 1
// CAND-NEXT:   SITE 75:52 launch_grid '8' -> {P}
// CAND-NEXT:   SITE 75:64 launch_block '8' -> {P}
// CAND:      CAND block_size tile_scale value=16 spelling=16 high launch-param
// CAND-NEXT:   SITE 75:35 template_arg '16' -> {P}
// CAND-NEXT:   SITE 75:60 launch_block '16' -> {P}
// CAND-NOT:  SITE 80:{{.*}} template_arg
// CAND-NOT:  SITE 88:{{.*}} template_arg
// CAND-NOT:  template_arg 'true'
// CHECK: wrote {{.*}}out.cu
// TPL:      template <int ITEMS_PER_THREAD = 4, int BLOCK_SIZE = 32, int UNROLL = 2, int ITEMS_PER_THREAD_2 = 2, int BLOCK_SIZE_2 = 64, int BLOCK_SIZE_3 = 128, int UNROLL_2 = 4>
// TPL-NEXT: cudaError_t scale_table(
// TPL:      typedef TileConfig<float, ITEMS_PER_THREAD, BLOCK_SIZE, UNROLL> Config;
// TPL:      using Config = TileConfig<float, ITEMS_PER_THREAD_2, BLOCK_SIZE_2>;
// TPL:      return launch_tile<TileConfig<float, 1, BLOCK_SIZE_3, UNROLL_2, true, 4>>(out, in, n, m, s);
// TPL:      return scale_table<4, 32, 2, 2, 64, 128, 4>(out, in, n, m, s);
// TPL:      tile_scale<TileConfig<float, ITEMS_PER_THREAD_3, BLOCK_SIZE_4>><<<(n + (ITEMS_PER_THREAD_3 - 1)) / ITEMS_PER_THREAD_3, dim3(BLOCK_SIZE_4, ITEMS_PER_THREAD_3)>>>(out, in, n, m);
// TPL:      typedef TileConfig<float, 2, 256> SharedConfig;
// TPL:      fill_rank<Layout<3>><<<1, FILL_RANK_BLOCK_SIZE>>>(out);
// PTX: ptx-identical: {{[0-9]+}} function(s) identical
// The manifest: each case's parameters with its condition.
// RUN: %python -c "import json,sys; m = json.load(open(sys.argv[1])); print(sorted((p['name'], p.get('case', '-')) for k in m['kernels'] for p in k.get('template_params', []) + k.get('launch_params', []) if p.get('tunable')))" %t/out.json | FileCheck %s --check-prefix=MAN
// MAN: ('BLOCK_SIZE', '(m) <= (64)')
// MAN-SAME: ('BLOCK_SIZE_2', '(!((m) <= (64))) && ((m) <= (1024))')
// MAN-SAME: ('BLOCK_SIZE_3', '-')
