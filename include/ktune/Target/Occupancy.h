//===- ktune/Target/Occupancy.h - Resident blocks per SM --------*- C++ -*-===//
//
// How many blocks of a kernel fit on one multiprocessor, computed the way
// the CUDA occupancy calculator does: the least of the limits by warp slots,
// by registers (allocated per warp in units of 256, per SM sub-partition),
// by shared memory (static + dynamic + the driver's reserve, in units of
// 128 bytes), by the block-slot count, and by named barriers.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_TARGET_OCCUPANCY_H
#define KTUNE_TARGET_OCCUPANCY_H

#include "ktune/Target/DeviceLimits.h"

#include <cstdint>
#include <string>

namespace ktune {

struct KernelFootprint {
  int64_t threadsPerBlock = 0;
  int registers = 0;       // per thread
  int64_t smemStatic = 0;  // bytes
  int64_t smemDynamic = 0; // bytes
  int barriers = 0;        // named barriers the kernel uses (0 = unknown)
};

struct Occupancy {
  int blocksPerSM = 0;
  // The limit each resource imposes (INT32_MAX where it imposes none).
  int byWarps = 0, byRegisters = 0, bySharedMemory = 0, byBlockSlots = 0,
      byBarriers = 0;
  std::string limiter; // "warps", "registers", "shared memory", ...
  /// Resident warps over the SM's warp slots.
  double warpOccupancy = 0;
};

Occupancy computeOccupancy(const DeviceLimits &limits,
                           const KernelFootprint &kernel);

} // namespace ktune

#endif
