#include "ktune/Target/Pruning.h"

#include <algorithm>

namespace ktune {

std::string LaunchDims::str() const {
  auto dims = [](const std::array<int64_t, 3> &d) {
    return "(" + std::to_string(d[0]) + "," + std::to_string(d[1]) + "," +
           std::to_string(d[2]) + ")";
  };
  return "grid " + dims(grid) + " block " + dims(block) + " smem " +
         std::to_string(smemDynamic);
}

std::optional<std::string> geometryPruneReason(const DeviceLimits &l,
                                               const LaunchDims &launch) {
  static const char *Axis[] = {"x", "y", "z"};
  for (int i = 0; i < 3; ++i) {
    if (launch.block[i] < 1)
      return std::string("block.") + Axis[i] + " = " +
             std::to_string(launch.block[i]) + " is not positive";
    if (launch.grid[i] < 1)
      return std::string("grid.") + Axis[i] + " = " +
             std::to_string(launch.grid[i]) + " is not positive";
    if (launch.block[i] > l.maxBlockDim[i])
      return std::string("block.") + Axis[i] + " = " +
             std::to_string(launch.block[i]) + " exceeds the limit " +
             std::to_string(l.maxBlockDim[i]);
    if (launch.grid[i] > l.maxGridDim[i])
      return std::string("grid.") + Axis[i] + " = " +
             std::to_string(launch.grid[i]) + " exceeds the limit " +
             std::to_string(l.maxGridDim[i]);
  }
  if (launch.threadsPerBlock() > l.maxThreadsPerBlock)
    return "threads per block " + std::to_string(launch.threadsPerBlock()) +
           " exceed the limit " + std::to_string(l.maxThreadsPerBlock);
  if (launch.smemDynamic < 0)
    return "dynamic shared memory " + std::to_string(launch.smemDynamic) +
           " is negative";
  int64_t smemLimit = std::max(l.smemPerBlock, l.smemPerBlockOptin);
  if (launch.smemDynamic > smemLimit)
    return "dynamic shared memory " + std::to_string(launch.smemDynamic) +
           " B exceeds the per-block limit " + std::to_string(smemLimit) + " B";
  return std::nullopt;
}

std::optional<std::string>
resourcePruneReason(const DeviceLimits &l, const LaunchDims &launch,
                    int registers, int64_t smemStatic, int barriers) {
  if (auto geometry = geometryPruneReason(l, launch))
    return geometry;
  int64_t threads = launch.threadsPerBlock();
  if (registers > 0) {
    int64_t warps = (threads + l.warpSize - 1) / l.warpSize;
    int64_t regsPerWarp = (int64_t(registers) * l.warpSize + 255) / 256 * 256;
    if (regsPerWarp * warps > l.regsPerBlock)
      return std::to_string(registers) + " registers x " +
             std::to_string(threads) + " threads exceed the " +
             std::to_string(l.regsPerBlock) + " registers of a block";
  }
  int64_t smemLimit = std::max(l.smemPerBlock, l.smemPerBlockOptin);
  if (smemStatic >= 0 && smemStatic + launch.smemDynamic > smemLimit)
    return "shared memory " + std::to_string(smemStatic) + " B static + " +
           std::to_string(launch.smemDynamic) + " B dynamic exceeds the " +
           "per-block limit " + std::to_string(smemLimit) + " B";
  KernelFootprint footprint{threads, std::max(registers, 0),
                            std::max<int64_t>(smemStatic, 0),
                            launch.smemDynamic, barriers};
  Occupancy occ = computeOccupancy(l, footprint);
  if (occ.blocksPerSM == 0)
    return "zero occupancy: no block fits on an SM (limited by " + occ.limiter +
           ")";
  return std::nullopt;
}

} // namespace ktune
