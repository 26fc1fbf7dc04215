//===- ktune/Target/DeviceLimits.h - Hardware limits of a GPU ---*- C++ -*-===//
//
// The limits pruning and timing need: from the driver when a device is
// there (queried by the worker process, which owns the CUDA context), or
// from a static table per architecture for compile-only mode without a GPU.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_TARGET_DEVICELIMITS_H
#define KTUNE_TARGET_DEVICELIMITS_H

#include "ktune/Support/Error.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ktune {

struct DeviceLimits {
  std::string name; // "NVIDIA H200", or "sm_90 (static limits)"
  std::string arch; // "sm_90"
  int ccMajor = 0, ccMinor = 0;
  bool fromDevice = false; // queried from a driver, not the static table

  int smCount = 0;
  int warpSize = 32;
  int maxThreadsPerBlock = 1024;
  std::array<int64_t, 3> maxBlockDim{1024, 1024, 64};
  std::array<int64_t, 3> maxGridDim{2147483647, 65535, 65535};
  int maxThreadsPerSM = 2048;
  int maxBlocksPerSM = 32;
  int regsPerBlock = 65536;
  int regsPerSM = 65536;
  int maxRegsPerThread = 255;
  int64_t smemPerBlock = 48 * 1024; // without opting in
  int64_t smemPerBlockOptin = 0;    // the most a block may opt in to
  int64_t smemPerSM = 0;
  int64_t reservedSmemPerBlock = 0; // taken by the driver (sm_80+: 1 KB)
  int64_t l2Bytes = 0;
  int64_t totalMemory = 0; // bytes; 0 when unknown
};

/// Limits of a typical part of the architecture ("sm_80", "sm_86", "sm_89",
/// "sm_90", "sm_100"; a suffix such as "sm_90a" reads as its base).
Expected<DeviceLimits> staticDeviceLimits(std::string_view arch);
std::vector<std::string> staticArchs();

/// "sm_90a" -> {9, 0}; "compute_90" -> {9, 0}.
Expected<std::array<int, 2>> parseArch(std::string_view arch);
std::string archForComputeCapability(int major, int minor);

/// The limits assumed where neither a device nor an architecture is given
/// (planners, re-plan rules): the static limits of a typical sm_90 part.
DeviceLimits assumedDeviceLimits();

nlohmann::json deviceLimitsToJson(const DeviceLimits &limits);
/// Reads what deviceLimitsToJson writes; every key is required.
Expected<DeviceLimits> deviceLimitsFromJson(const nlohmann::json &json);
/// Reads the keys present (a person's partial file) over `defaults`; extra
/// keys are ignored. Either way a key of the wrong type or out of range is an
/// error naming it.
Expected<DeviceLimits> deviceLimitsFromJson(const nlohmann::json &json,
                                            const DeviceLimits &defaults);

} // namespace ktune

#endif
