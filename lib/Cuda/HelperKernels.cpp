#include "ktune/Cuda/HelperKernels.h"

#include "ktune/Support/DType.h"

namespace ktune {

const std::string &helperKernelSource() {
  static const std::string Source = R"cuda(
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>

namespace ktune_helpers {

__device__ __forceinline__ unsigned long long mix(unsigned long long x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Uniform in (0, 1), a pure function of (seed, index, stream).
__device__ __forceinline__ double uniform01(unsigned long long seed,
                                            unsigned long long i, int stream) {
  unsigned long long bits = mix(seed ^ mix(2ull * i + stream)) >> 11;
  return (static_cast<double>(bits) + 0.5) * (1.0 / 9007199254740992.0);
}

template <class T> struct Traits {
  static constexpr bool isInt = true;
  // Through long long: a negative double into an unsigned type is undefined.
  __device__ static T from(double v) {
    return static_cast<T>(static_cast<long long>(v));
  }
  __device__ static double to(T v) { return static_cast<double>(v); }
};
template <> struct Traits<float> {
  static constexpr bool isInt = false;
  __device__ static float from(double v) { return static_cast<float>(v); }
  __device__ static double to(float v) { return v; }
};
template <> struct Traits<double> {
  static constexpr bool isInt = false;
  __device__ static double from(double v) { return v; }
  __device__ static double to(double v) { return v; }
};
template <> struct Traits<__half> {
  static constexpr bool isInt = false;
  __device__ static __half from(double v) { return __float2half(static_cast<float>(v)); }
  __device__ static double to(__half v) { return __half2float(v); }
};
template <> struct Traits<__nv_bfloat16> {
  static constexpr bool isInt = false;
  __device__ static __nv_bfloat16 from(double v) { return __float2bfloat16(static_cast<float>(v)); }
  __device__ static double to(__nv_bfloat16 v) { return __bfloat162float(v); }
};
template <> struct Traits<__nv_fp8_e4m3> {
  static constexpr bool isInt = false;
  __device__ static __nv_fp8_e4m3 from(double v) { return __nv_fp8_e4m3(static_cast<float>(v)); }
  __device__ static double to(__nv_fp8_e4m3 v) { return static_cast<float>(v); }
};
template <> struct Traits<__nv_fp8_e5m2> {
  static constexpr bool isInt = false;
  __device__ static __nv_fp8_e5m2 from(double v) { return __nv_fp8_e5m2(static_cast<float>(v)); }
  __device__ static double to(__nv_fp8_e5m2 v) { return static_cast<float>(v); }
};

__device__ __forceinline__ unsigned long long warpMin(unsigned long long v) {
  for (int o = 16; o > 0; o >>= 1) {
    unsigned long long w = __shfl_down_sync(0xffffffffu, v, o);
    v = w < v ? w : v;
  }
  return v;
}
__device__ __forceinline__ unsigned long long warpMax(unsigned long long v) {
  for (int o = 16; o > 0; o >>= 1) {
    unsigned long long w = __shfl_down_sync(0xffffffffu, v, o);
    v = w > v ? w : v;
  }
  return v;
}
__device__ __forceinline__ unsigned long long warpSum(unsigned long long v) {
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

} // namespace ktune_helpers

// mode: 0 normal, 1 uniform, 2 ones, 3 zeros, 4 arange. Integer types take
// uniform integers in [low, high] for normal and uniform.
template <class T>
__global__ void ktune_fill(T *p, unsigned long long n, unsigned long long seed,
                           int mode, double low, double high) {
  using namespace ktune_helpers;
  unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < n; i += stride) {
    double v = 0.0;
    if (mode == 2) {
      v = 1.0;
    } else if (mode == 3) {
      v = 0.0;
    } else if (mode == 4) {
      v = static_cast<double>(i);
    } else if constexpr (Traits<T>::isInt) {
      double lo = ceil(low), hi = floor(high);
      v = floor(lo + (hi - lo + 1.0) * uniform01(seed, i, 0));
      v = v > hi ? hi : v;
    } else if (mode == 1) {
      v = low + (high - low) * uniform01(seed, i, 0);
    } else {
      double u1 = uniform01(seed, i, 0), u2 = uniform01(seed, i, 1);
      v = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
    }
    p[i] = Traits<T>::from(v);
  }
}

// stats: [mismatches, first mismatch index, max |got - want| bits, non-finite
// got where want is finite, non-finite want]; the caller zeroes every word
// but word 1, which it sets to all ones.
template <class T>
__global__ void ktune_compare(const T *got, const T *want, unsigned long long n,
                              double atol, double rtol,
                              unsigned long long *stats) {
  using namespace ktune_helpers;
  unsigned long long mismatches = 0, first = ~0ull, maxErrBits = 0,
                     nonFinite = 0, wantNonFinite = 0;
  unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < n; i += stride) {
    double a = Traits<T>::to(got[i]), b = Traits<T>::to(want[i]);
    bool ok;
    double err = 0.0;
    if constexpr (Traits<T>::isInt) {
      // Integers compare in their own type: doubles lose bits past 2^53.
      err = fabs(a - b);
      ok = got[i] == want[i] ||
           ((atol != 0.0 || rtol != 0.0) && err <= atol + rtol * fabs(b));
    } else if (isnan(b)) {
      ok = isnan(a);
      ++wantNonFinite;
    } else if (isinf(b)) {
      ok = a == b;
      ++wantNonFinite;
    } else {
      ok = fabs(a - b) <= atol + rtol * fabs(b); // false for NaN
      if (isfinite(a))
        err = fabs(a - b);
      else
        ++nonFinite;
    }
    if (!ok) {
      ++mismatches;
      if (i < first)
        first = i;
    }
    unsigned long long bits = static_cast<unsigned long long>(__double_as_longlong(err));
    if (bits > maxErrBits)
      maxErrBits = bits;
  }
  mismatches = warpSum(mismatches);
  nonFinite = warpSum(nonFinite);
  wantNonFinite = warpSum(wantNonFinite);
  first = warpMin(first);
  maxErrBits = warpMax(maxErrBits);
  if ((threadIdx.x & 31) == 0) {
    if (mismatches)
      atomicAdd(&stats[0], mismatches);
    if (first != ~0ull)
      atomicMin(&stats[1], first);
    if (maxErrBits)
      atomicMax(&stats[2], maxErrBits);
    if (nonFinite)
      atomicAdd(&stats[3], nonFinite);
    if (wantNonFinite)
      atomicAdd(&stats[4], wantNonFinite);
  }
}

template <class T>
__global__ void ktune_read_pair(const T *a, const T *b, unsigned long long i,
                                double *out) {
  out[0] = ktune_helpers::Traits<T>::to(a[i]);
  out[1] = ktune_helpers::Traits<T>::to(b[i]);
}

// Launched before each configuration a profiler measures: it marks where
// that configuration's launches begin.
extern "C" __global__ void ktune_profile_marker() {}
)cuda";
  return Source;
}

std::string helperNameExpression(HelperKind kind, DType type) {
  const char *name = kind == HelperKind::Fill      ? "ktune_fill"
                     : kind == HelperKind::Compare ? "ktune_compare"
                                                   : "ktune_read_pair";
  return std::string(name) + "<" + std::string(dtypeInfo(type).cudaType) + ">";
}

std::vector<Instantiation> helperInstantiations() {
  std::vector<Instantiation> out;
  for (const auto &info : allDTypes())
    for (HelperKind k :
         {HelperKind::Fill, HelperKind::Compare, HelperKind::ReadPair})
      out.push_back({helperNameExpression(k, info.type), 0});
  return out;
}

int fillMode(const std::string &init) {
  if (init == "normal")
    return 0;
  if (init == "uniform")
    return 1;
  if (init == "ones")
    return 2;
  if (init == "zeros")
    return 3;
  if (init == "arange")
    return 4;
  return -1;
}

} // namespace ktune
