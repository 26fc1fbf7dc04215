// ktune_nvrtc_std.h - the C++ standard library names device code uses, for
// NVRTC (which has no standard library): libcu++ (cuda::std) under std, and
// the fixed-width integer types at global scope. Only on NVRTC's include
// path (`ktune run`); nvcc and clang never see these headers.
#pragma once
#ifdef __CUDACC_RTC__
#include <cuda/std/cassert>
#include <cuda/std/cfloat>
#include <cuda/std/climits>
#include <cuda/std/cmath>
#include <cuda/std/cstddef>
#include <cuda/std/cstdint>
#include <cuda/std/limits>
#include <cuda/std/type_traits>
#include <cuda/std/utility>

namespace std {
using namespace ::cuda::std;
template <class T>
__host__ __device__ constexpr const T &min(const T &a, const T &b) {
  return b < a ? b : a;
}
template <class T>
__host__ __device__ constexpr const T &max(const T &a, const T &b) {
  return a < b ? b : a;
}
} // namespace std

using ::cuda::std::int16_t;
using ::cuda::std::int32_t;
using ::cuda::std::int64_t;
using ::cuda::std::int8_t;
using ::cuda::std::intptr_t;
using ::cuda::std::uint16_t;
using ::cuda::std::uint32_t;
using ::cuda::std::uint64_t;
using ::cuda::std::uint8_t;
using ::cuda::std::uintptr_t;
#endif
