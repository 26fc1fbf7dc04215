//===- ktune/Tune/T1.h - Kernel Tuner / benchmark_hub T1 input --*- C++ -*-===//
//
// Reads the search space of a T1 input file (the tuning-problem format of
// the auto-tuning community's benchmark_hub, written by Kernel Tuner):
//
//   "ConfigurationSpace": {
//     "TuningParameters": [{"Name": "block_size_x", "Type": "int",
//                           "Values": "[16, 32, 48]", "Default": 16}, ...],
//     "Conditions": [{"Expression": "block_size_x*block_size_y<=1024",
//                     "Parameters": ["block_size_x", "block_size_y"]}, ...]}
//
// "Values" is a Python list literal in a string (a JSON array is accepted
// too); conditions are Python expressions, read with the Python dialect of
// ktune::expr. Only integer (and boolean) parameters are supported.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_TUNE_T1_H
#define KTUNE_TUNE_T1_H

#include "ktune/Support/Error.h"
#include "ktune/Tune/SearchSpace.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ktune {

struct T1Space {
  std::string benchmarkName;           // General.BenchmarkName, when given
  std::string kernelName;              // KernelSpecification.KernelName
  std::vector<SpaceParam> params;      // in file order
  std::vector<std::string> conditions; // Python dialect, as written

  /// The search space: params x conditions (Python dialect).
  Expected<SearchSpace> searchSpace() const;
};

/// Errors name the JSON path ("ConfigurationSpace.TuningParameters[2].Values").
Expected<T1Space> t1FromJson(const nlohmann::json &json);
/// Reads a T1 file (plain or gzip); errors name the file.
Expected<T1Space> readT1File(const std::string &path);

/// Parses a Python list literal of integers ("[16, 32, 48]", "[True, False]",
/// "(1, 2)", "range(1, 5)" is not accepted). Errors give the column.
Expected<std::vector<int64_t>> parsePythonIntList(std::string_view text);

} // namespace ktune

#endif
