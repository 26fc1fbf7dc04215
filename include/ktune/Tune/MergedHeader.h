//===- ktune/Tune/MergedHeader.h - One header for every GPU model -*- C++
//-*-===//
//
// Results tuned on several GPU models become one header. At run time it
// reads the device once (name and compute capability, cached per device)
// and picks that device's configuration: its own tuning when the name
// matches, else the nearest tuned device of the same architecture (same
// compute-capability major, nearest minor), else the kernel's defaults.
// One device's results are never mixed with another's: each device's
// per-shape winners and general configuration are kept whole.
//
// The choice is a host function of the device's properties
// (select_device_tuning(name, major, minor)), testable without a GPU.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_TUNE_MERGEDHEADER_H
#define KTUNE_TUNE_MERGEDHEADER_H

#include "ktune/Tune/Results.h"

#include <string>
#include <vector>

namespace ktune {

/// The header text. Errors when the results are of different kernels or
/// parameters, when one device appears twice, or when a device's
/// architecture is not "sm_XY".
Expected<std::string> renderMergedHeader(const std::vector<TuneResults> &all);

/// Reads the results.json files of several GPU models and writes their
/// merged header to `headerPath`; returns how many devices it covers.
Expected<size_t> writeMergedHeader(const std::vector<std::string> &resultsPaths,
                                   const std::string &headerPath);

} // namespace ktune

#endif
