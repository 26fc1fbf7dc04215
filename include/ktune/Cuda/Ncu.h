//===- ktune/Cuda/Ncu.h - Hardware counters from Nsight Compute -*- C++ -*-===//
//
// `ktune run --profile` measures the default and the best configuration of
// each shape once more under Nsight Compute: a worker started by `ncu` with
// profiling off until the worker asks for it (cuProfilerStart), so only the
// launches of a "profile" request are measured. Each such request launches a
// marker kernel first; in the CSV ncu writes, the rows after a marker are one
// configuration's launches (a launcher may launch several kernels).
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_CUDA_NCU_H
#define KTUNE_CUDA_NCU_H

#include "ktune/Cuda/HelperKernels.h"
#include "ktune/Support/Error.h"
#include "ktune/Tune/Evaluator.h"

#include <string>
#include <vector>

namespace ktune {

/// Nsight Compute's command-line profiler: $KTUNE_NCU, else `ncu` on PATH,
/// else under $CUDA_HOME or the toolkit this build found. Errors with what
/// was tried.
Expected<std::string> findNsightCompute();

/// The argv before the worker's: ncu writing CSV of the raw metrics ktune
/// reads to `logPath`, profiling from the first cuProfilerStart, at the
/// clocks the tuner timed with (not locked to base clocks).
std::vector<std::string> ncuCommand(const std::string &ncu,
                                    const std::string &logPath);

/// Splits ncu's CSV log (`--csv --page raw`, other lines ignored) at the
/// marker rows: element i sums the launches after the i-th marker (bytes
/// and durations added, occupancies weighted by duration). Errors when the
/// log has no CSV (with ncu's first error line, e.g. ERR_NVGPUCTRPERM) or a
/// metric ktune reads is missing.
Expected<std::vector<HardwareCounters>>
countersFromNcuLog(const std::string &log);

} // namespace ktune

#endif
