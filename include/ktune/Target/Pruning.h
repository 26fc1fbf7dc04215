//===- ktune/Target/Pruning.h - Configurations that cannot run --*- C++ -*-===//
//
// A configuration whose launch exceeds a hardware limit is recorded with the
// reason and never launched: first by its geometry alone (before compiling),
// then with the compiler's resource report (registers, static shared memory).
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_TARGET_PRUNING_H
#define KTUNE_TARGET_PRUNING_H

#include "ktune/Target/DeviceLimits.h"
#include "ktune/Target/Occupancy.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace ktune {

struct LaunchDims {
  std::array<int64_t, 3> grid{1, 1, 1};
  std::array<int64_t, 3> block{1, 1, 1};
  int64_t smemDynamic = 0;

  int64_t threadsPerBlock() const { return block[0] * block[1] * block[2]; }
  int64_t blocks() const { return grid[0] * grid[1] * grid[2]; }
  std::string str() const; // "grid (128,1,1) block (256,1,1) smem 0"
};

/// Why the launch cannot run on `limits`, judged by the geometry alone.
std::optional<std::string> geometryPruneReason(const DeviceLimits &limits,
                                               const LaunchDims &launch);

/// Why the compiled kernel cannot run with this launch: registers or shared
/// memory over the per-block limits, or zero resident blocks per SM.
std::optional<std::string>
resourcePruneReason(const DeviceLimits &limits, const LaunchDims &launch,
                    int registers, int64_t smemStatic, int barriers = 0);

} // namespace ktune

#endif
