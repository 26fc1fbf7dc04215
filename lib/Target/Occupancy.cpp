#include "ktune/Target/Occupancy.h"

#include <algorithm>
#include <climits>

namespace ktune {

static int64_t divideRoundUp(int64_t x, int64_t y) { return (x + y - 1) / y; }
static int64_t roundUp(int64_t x, int64_t y) { return divideRoundUp(x, y) * y; }

// Architecture facts the driver does not report (cuda_occupancy.h has the
// same table): register allocation unit per warp, SM sub-partitions, shared
// memory allocation unit, barriers per block slot.
static constexpr int RegAllocUnit = 256;
static constexpr int SubPartitions = 4;

static int smemAllocUnit(const DeviceLimits &l) {
  return l.ccMajor >= 8 ? 128 : 256;
}

static int barriersPerBlockSlot(const DeviceLimits &l) {
  // sm_86/sm_89/sm_101/sm_110/sm_120 parts have one barrier set per slot.
  if ((l.ccMajor == 8 && l.ccMinor != 0) ||
      (l.ccMajor == 10 && l.ccMinor == 1) ||
      (l.ccMajor == 11 && l.ccMinor == 0) || l.ccMajor == 12)
    return 1;
  return 2;
}

Occupancy computeOccupancy(const DeviceLimits &l, const KernelFootprint &k) {
  Occupancy o;
  if (k.threadsPerBlock <= 0 || k.threadsPerBlock > l.maxThreadsPerBlock) {
    o.limiter = "threads per block";
    return o;
  }
  const int64_t warpsPerBlock = divideRoundUp(k.threadsPerBlock, l.warpSize);
  const int64_t maxWarpsPerSM = l.maxThreadsPerSM / l.warpSize;

  o.byWarps = static_cast<int>(maxWarpsPerSM / warpsPerBlock);
  o.byBlockSlots = l.maxBlocksPerSM;

  // Registers.
  if (k.registers <= 0) {
    o.byRegisters = INT_MAX;
  } else {
    int64_t regsPerWarp =
        roundUp(int64_t(k.registers) * l.warpSize, RegAllocUnit);
    int64_t regsPerBlock = regsPerWarp * warpsPerBlock;
    // The hardware checks the block as if spread over all sub-partitions.
    int64_t regsAssumed = regsPerWarp * roundUp(warpsPerBlock, SubPartitions);
    if (regsPerBlock > l.regsPerBlock || regsAssumed > l.regsPerBlock ||
        k.registers > l.maxRegsPerThread) {
      o.byRegisters = 0;
    } else {
      int64_t warpsPerSubPartition =
          (l.regsPerSM / SubPartitions) / regsPerWarp;
      o.byRegisters = static_cast<int>(warpsPerSubPartition * SubPartitions /
                                       warpsPerBlock);
    }
  }

  // Shared memory (the default carveout: all of it may be shared memory).
  int64_t smemUsed = k.smemStatic + k.smemDynamic + l.reservedSmemPerBlock;
  int64_t smemAllocated = roundUp(smemUsed, smemAllocUnit(l));
  int64_t blockLimit =
      (k.smemStatic + k.smemDynamic > l.smemPerBlock ? l.smemPerBlockOptin
                                                     : l.smemPerBlock) +
      l.reservedSmemPerBlock;
  if (k.smemStatic + k.smemDynamic >
          std::max(l.smemPerBlock, l.smemPerBlockOptin) ||
      smemAllocated > blockLimit)
    o.bySharedMemory = 0;
  else if (smemAllocated == 0)
    o.bySharedMemory = INT_MAX;
  else
    o.bySharedMemory = static_cast<int>(l.smemPerSM / smemAllocated);

  // Barriers.
  o.byBarriers = k.barriers > 0
                     ? l.maxBlocksPerSM * barriersPerBlockSlot(l) / k.barriers
                     : INT_MAX;

  struct Limit {
    int value;
    const char *name;
  } limits[] = {{o.byWarps, "warps"},
                {o.byRegisters, "registers"},
                {o.bySharedMemory, "shared memory"},
                {o.byBlockSlots, "block slots"},
                {o.byBarriers, "barriers"}};
  const Limit *least = &limits[0];
  for (const auto &lim : limits)
    if (lim.value < least->value)
      least = &lim;
  o.blocksPerSM = std::max(0, least->value);
  o.limiter = least->name;
  o.warpOccupancy =
      double(o.blocksPerSM * warpsPerBlock) / double(maxWarpsPerSM);
  return o;
}

} // namespace ktune
