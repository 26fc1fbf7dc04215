// Enumerators passed to a kernel's enum template parameter select code
// paths (llama.cpp's MMQ data layouts): a dispatch, never a knob. The
// comparison inside the kernel keeps its enumerator; it must not become the
// parameter compared with itself.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL

enum pack_mode { PACK_PLAIN, PACK_SCALED, PACK_SWIZZLED };

template <pack_mode M>
__global__ void pack(const float *in, float *out) {
  const int per_row = M == PACK_SCALED ? 48 : 16;
  if (M != PACK_SWIZZLED)
    out[threadIdx.x] = in[threadIdx.x] * per_row;
  else
    out[threadIdx.x ^ 1] = in[threadIdx.x];
}

template <bool Scaled>
__global__ void scale(float *x) {
  x[threadIdx.x] *= Scaled ? 2.0f : 1.0f;
}

void pack_rows(const float *in, float *out, pack_mode m, cudaStream_t s) {
  switch (m) {
  case PACK_SCALED:
    pack<PACK_SCALED><<<1, 96, 0, s>>>(in, out);
    break;
  default:
    pack<PACK_SWIZZLED><<<1, 96, 0, s>>>(in, out);
    break;
  }
  scale<true><<<1, 96, 0, s>>>(out);
}

// CAND-NOT:  PACK_
// CAND:      CAND block_size pack value=96 spelling=96 high launch-param
// CAND-NOT:  PACK_
// CAND-NOT:  other
// CAND-NOT:  template_arg

// The kernels read nothing of their block size: both 96s are launch
// parameters of pack_rows, under one name.
// TPL:      template <pack_mode M>
// TPL-NEXT: __global__ void pack(
// TPL:        const int per_row = M == PACK_SCALED ? 48 : 16;
// TPL-NEXT:   if (M != PACK_SWIZZLED)
// TPL:      template <int BLOCK_SIZE = 96>
// TPL-NEXT: void pack_rows(
// TPL:          pack<PACK_SCALED><<<1, BLOCK_SIZE, 0, s>>>(in, out);
// TPL:          pack<PACK_SWIZZLED><<<1, BLOCK_SIZE, 0, s>>>(in, out);
// TPL:        scale<true><<<1, BLOCK_SIZE, 0, s>>>(out);
