// A configuration table as a switch of case macros (ByteTransformer's
// WMMA_ATTENTION_LONG(SEQ, HEAD, SPLIT)): each case sets the fields of dim3
// locals declared before the switch (`grid.x = ..., grid.y = ...,
// block.x = ...;`, one comma expression) and launches; the dims are read
// along the case's statements from its label, in a member of a class
// template whose launch's stream depends on a template parameter. The
// kernel's SPLIT sizes work through a const local (`const int rows =
// min(SPLIT, n - ...)`, then a loop bound), so each case's SPLIT is a knob
// of its case. A case falling through into the next, after changing the
// dims, keeps its launch's constants (a note). A dim3 that configures one
// launch is read, not changed, by it: the next launch reads the same dims.
// REQUIRES: clang, nvcc
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2>&1 | FileCheck %s
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %scripts/ptx-identical.py %s %t/out.cu %t/out.json --nvcc %nvcc | FileCheck %s --check-prefix=PTX

template <int SEQ, int SPLIT>
__global__ void attend(float *out, const float *in, int n) {
  const int rows = min(SPLIT, n - (int)blockIdx.y * SPLIT);
  for (int r = threadIdx.x / 32; r < rows; r += blockDim.x / 32)
    out[blockIdx.y * SPLIT + r] = in[r % SEQ];
}

struct Params {
  int batch;
  cudaStream_t stream;
};

#define ATTEND(SEQ, SPLIT)                                                     \
  grid.x = heads_, grid.y = (SEQ + SPLIT - 1) / SPLIT, grid.z = p.batch,       \
  block.x = 32 * (SPLIT / 16 * split_count);                                   \
  attend<SEQ, SPLIT><<<grid, block, 0, p.stream>>>(out, in, n)

template <typename P> struct Attention {
  int heads_ = 8;
  void run(const P &p, float *out, const float *in, int n);
  void twice(const P &p, float *out, const float *in, int n);
};

template <typename P>
void Attention<P>::run(const P &p, float *out, const float *in, int n) {
  dim3 grid, block;
  const int split_count = (n + 15) / 16;
  switch (split_count) {
  case 6:
    ATTEND(96, 48);
    break;
  case 7:
    ATTEND(112, 64);
    break;
  case 8:
    block.y = 2;
  case 9:
    ATTEND(144, 32);
    break;
  }
}

template <typename P>
void Attention<P>::twice(const P &p, float *out, const float *in, int n) {
  dim3 grid(n / 64), block(96);
  attend<64, 32><<<grid, block, 0, p.stream>>>(out, in, n);
  attend<64, 32><<<grid, block, 0, p.stream>>>(out, in, n);
}

template struct Attention<Params>;

// CAND:      CAND other attend value=48 spelling=48 high
// CAND-NEXT:   SITE 49:16 template_arg '48' -> {P}
// CAND-NEXT:   CASE {{.*}}:47 #0 when unknown
// CAND:      CAND other attend value=64 spelling=64 high
// CAND-NEXT:   SITE 52:17 template_arg '64' -> {P}
// CAND-NEXT:   CASE {{.*}}:47 #1 when unknown
// CAND-NOT:  template_arg '96'
// CAND:      CAND block_size attend value=96 spelling=96 high launch-param
// CAND-NEXT:   SITE 64:28 launch_block '96' -> {P}
// CHECK:     note: {{.*}}:35:30: the block `block` of this launch is changed where its value cannot be followed
// CHECK-NOT: note: {{.*}}the grid `grid` of this launch is changed
// CHECK:     wrote {{.*}}out.cu
// TPL:      void run(const P &p, float *out, const float *in, int n);
// TPL-NEXT: template <int PARAM = 48, int PARAM_2 = 64, int PARAM_3 = 32{{.*}}> void ktune_run(
// TPL:      ATTEND(96, PARAM);
// TPL:      ATTEND(112, PARAM_2);
// TPL:      ATTEND(144, PARAM_3);
// TPL:      return ktune_run<48, 64, 32{{.*}}>(p, out, in, n);
// TPL:      template struct Attention<Params>;
// PTX: ptx-identical: 4 function(s) identical
