//===- ktune/Tune/StrategyBenchReport.h - A strategy comparison -*- C++ -*-===//
//
// What ktune-bench-strategies runs: the strategies on recorded spaces (a T1
// definition and T4 recordings), their shuffled twins and the synthetic
// spaces, as one markdown document (docs/strategies.md#comparing-strategies).
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_TUNE_STRATEGYBENCHREPORT_H
#define KTUNE_TUNE_STRATEGYBENCHREPORT_H

#include "ktune/Tune/StrategyBench.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace ktune {

struct StrategyBenchRequest {
  std::string t1;              // Kernel Tuner T1 input: the space
  std::vector<std::string> t4; // recordings of that space
  /// "name", or "label=name" to run strategy `name` under another label.
  std::vector<std::string> strategies;
  /// Strategy options keyed by label.
  nlohmann::json options = nlohmann::json::object();
  BenchOptions bench;
  bool permuted = false;  // also the spaces with values shuffled
  bool synthetic = false; // also the synthetic spaces
  bool perSeed = false;   // list every seed's result
  std::string baseline;   // a markdown table of reference figures
  std::string command;    // how it was run, for the record
  /// Told the title of each section once it is done.
  std::function<void(const std::string &title)> sectionDone;
};

/// Runs the comparison: with bench.devices > 1 batches for N devices
/// against one device on the recorded spaces, else the median evaluations
/// to reach the target for each strategy and space.
Expected<std::string> strategyBenchDocument(const StrategyBenchRequest &r);

} // namespace ktune

#endif
