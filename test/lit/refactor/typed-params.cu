// A constant replaced by a parameter keeps its type: 1024U gives an
// unsigned parameter, 256L a long one, a size_t constant a size_t one, so
// std::min/std::max deduce as before and the template compiles (an int
// parameter in std::min(d / vec, 1024U) would not). An int literal next to
// them stays int. Argument types come canonical in the manifest (`uint`,
// `int64_t`, `size_t`, an enum as its underlying type with its name), for
// kernels and launchers.
// REQUIRES: clang
// RUN: rm -rf %t && mkdir -p %t
// RUN: ktune-refactor %s --candidates | %python %inputs/refactor/summarize.py > %t/cands.txt
// RUN: FileCheck %s --check-prefix=CAND < %t/cands.txt
// RUN: ktune-refactor %s -o %t/out.cu 2> %t/stderr.txt
// RUN: grep -v -e '^// ' -e '^#line ' %t/out.cu | FileCheck %s --check-prefix=TPL
// RUN: %python %inputs/refactor/summarize.py < %t/out.json | FileCheck %s --check-prefix=MANIFEST

#include <algorithm>
#include <cstddef>
#include <cstdint>

typedef unsigned int uint;
enum class Layout : short { Rows, Cols };

constexpr size_t kChunk = 512;

template <typename T>
__global__ void scale(T *x, uint n, int64_t stride, size_t bytes,
                      Layout layout) {
  for (uint i = threadIdx.x; i < n; i += blockDim.x)
    x[blockIdx.x * stride + i] *= layout == Layout::Rows ? 2 : 3;
}

template <typename T>
void scale_all(T *x, uint n, int64_t stride, size_t bytes, Layout layout,
               int rows) {
  uint32_t vec = 16 / sizeof(T);
  scale<T><<<rows, std::min(n / vec, 1024U)>>>(x, n, stride, bytes, layout);
  scale<T><<<rows, std::max(stride / 8, 256L)>>>(x, n, stride, bytes, layout);
  scale<T><<<rows, std::min(bytes / sizeof(T), kChunk)>>>(x, n, stride,
                                                          bytes, layout);
  scale<T><<<rows, 128>>>(x, n, stride, bytes, layout);
}

template void scale_all<float>(float *, uint, int64_t, size_t, Layout, int);

// CAND:      CAND block_size scale value=1024 spelling=1024 high type=unsigned int launch-param
// CAND-NEXT:   SITE 36:38 launch_block '1024U' -> {P}
// CAND:      CAND block_size scale value=256 spelling=256 high type=long launch-param
// CAND-NEXT:   SITE 37:41 launch_block '256L' -> {P}
// CAND:      CAND block_size scale value=512 spelling=kChunk high type=size_t launch-param
// CAND-NEXT:   SITE 38:48 launch_block 'kChunk' -> {P}
// CAND:      CAND block_size scale value=128 spelling=128 high launch-param

// TPL:      template <typename T, unsigned int BLOCK_SIZE = 1024, long BLOCK_SIZE_2 = 256, size_t BLOCK_SIZE_3 = 512, int BLOCK_SIZE_4 = 128>
// TPL-NEXT: void scale_all(
// TPL:        scale<T><<<rows, std::min(n / vec, BLOCK_SIZE)>>>(x, n, stride, bytes, layout);
// TPL-NEXT:   scale<T><<<rows, std::max(stride / 8, BLOCK_SIZE_2)>>>(x, n, stride, bytes, layout);
// TPL-NEXT:   scale<T><<<rows, std::min(bytes / sizeof(T), BLOCK_SIZE_3)>>>(x, n, stride,
// TPL:        scale<T><<<rows, BLOCK_SIZE_4>>>(x, n, stride, bytes, layout);

// MANIFEST:      KERNEL scale
// MANIFEST-NEXT:   PARAM T typename
// MANIFEST-NEXT:   LAUNCH-PARAM BLOCK_SIZE unsigned int block_size default=1024 launcher=scale_all
// MANIFEST-NEXT:   LAUNCH-PARAM BLOCK_SIZE_2 long block_size default=256 launcher=scale_all
// MANIFEST-NEXT:   LAUNCH-PARAM BLOCK_SIZE_3 size_t block_size default=512 launcher=scale_all
// MANIFEST-NEXT:   LAUNCH-PARAM BLOCK_SIZE_4 int block_size default=128 launcher=scale_all
// MANIFEST-NEXT:   ARG T * x{{$}}
// MANIFEST-NEXT:   ARG uint n canonical=unsigned int
// MANIFEST-NEXT:   ARG int64_t stride canonical=long
// MANIFEST-NEXT:   ARG size_t bytes canonical=unsigned long
// MANIFEST-NEXT:   ARG Layout layout canonical=short enum=Layout
// MANIFEST:      LAUNCHER scale_all returns=void kernels=['scale']
// MANIFEST:        ARG uint n canonical=unsigned int
// MANIFEST-NEXT:   ARG int64_t stride canonical=long
// MANIFEST-NEXT:   ARG size_t bytes canonical=unsigned long
// MANIFEST-NEXT:   ARG Layout layout canonical=short enum=Layout
// MANIFEST-NEXT:   ARG int rows{{$}}
