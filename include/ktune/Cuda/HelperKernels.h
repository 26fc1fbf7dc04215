//===- ktune/Cuda/HelperKernels.h - Device-side fill and compare -*- C++
//-*-===//
//
// Small kernels the worker runs around the tuned kernel, compiled with NVRTC
// for the device like any instantiation (and cached the same way):
//   ktune_fill<T>       inputs from a fixed seed, on the device: a counter-
//                       based hash gives uniform or normal values per
//                       element, so a restarted worker re-creates the same
//                       data without copying anything from the host;
//   ktune_compare<T>    |got - want| <= atol + rtol * |want| per element; a
//                       NaN/Inf where the reference has a finite value fails;
//                       returns mismatch count, first index, max error;
//   ktune_read_pair<T>  the two values at one index, for the message.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_CUDA_HELPERKERNELS_H
#define KTUNE_CUDA_HELPERKERNELS_H

#include "ktune/Cuda/NvrtcCompiler.h"
#include "ktune/Tune/Spec.h"

#include <string>
#include <vector>

namespace ktune {

enum class HelperKind { Fill, Compare, ReadPair };

/// The CUDA source of every helper kernel template.
const std::string &helperKernelSource();
/// "ktune_fill<__nv_bfloat16>", ...
std::string helperNameExpression(HelperKind kind, DType type);
/// Every helper instantiation (each kind for each element type).
std::vector<Instantiation> helperInstantiations();

/// Layout of the compare kernel's result: 4 unsigned 64-bit words.
enum CompareStatsWord : int {
  CompareMismatches = 0,
  CompareFirstIndex = 1,    // UINT64_MAX when none
  CompareMaxAbsErrBits = 2, // bits of a non-negative double
  CompareNonFinite = 3,     // NaN/Inf in `got` where `want` is finite
  CompareWantNonFinite = 4, // NaN/Inf in `want`
  CompareStatsWords = 5,
};

/// The marker kernel (no template): launched before each configuration a
/// profiler measures, where that configuration's launches begin.
inline constexpr const char *ProfileMarkerKernel = "ktune_profile_marker";

/// Fill modes, as the fill kernel's `mode` argument.
int fillMode(const std::string &init); // -1 when unknown

} // namespace ktune

#endif
