//===- ktune/Tune/BatchStrategyBench.h - N devices vs one -----*- C++ -*-===//
//
// What several devices buy a search: each strategy runs on every space and
// seed once with one device and once with N virtual devices (batches of N
// points per wall-clock round). The measures are the evaluations and the
// rounds until the best time found is within the tolerance of the optimum,
// as medians over seeds summed over the spaces; the bar compares the
// rounds of N devices and their evaluations with the evaluations of one.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_TUNE_BATCHSTRATEGYBENCH_H
#define KTUNE_TUNE_BATCHSTRATEGYBENCH_H

#include "ktune/Tune/StrategyBench.h"

namespace ktune {

struct BatchBenchBar {
  /// Rounds with N devices at most this fraction of one device's rounds.
  double maxRoundRatio = 1.0 / 3.0;
  /// Evaluations with N devices at most this multiple of one device's.
  double maxEvaluationRatio = 1.25;
};

struct BatchBenchRow {
  std::string strategy;
  /// Sums over the spaces of the per-space medians; a run that never
  /// reached the target counts budget + 1 evaluations and the round after
  /// the budget.
  double sequentialEvaluations = 0;
  double batchEvaluations = 0;
  double batchRounds = 0;
  /// Spaces whose median run did not reach the target.
  unsigned sequentialUnreached = 0, batchUnreached = 0;

  double roundRatio() const { return batchRounds / sequentialEvaluations; }
  double evaluationRatio() const {
    return batchEvaluations / sequentialEvaluations;
  }
  bool meets(const BatchBenchBar &bar) const {
    return roundRatio() <= bar.maxRoundRatio &&
           evaluationRatio() <= bar.maxEvaluationRatio;
  }
};

struct BatchBenchReport {
  unsigned devices = 1;
  std::vector<BenchCell> sequential, batched;
  std::vector<BatchBenchRow> rows; // in strategy order
};

/// Runs every strategy with one device and with `options.devices`.
Expected<BatchBenchReport>
runBatchBench(const std::vector<BenchSpace> &spaces,
              const std::vector<BenchStrategy> &strategies,
              const BenchOptions &options);

/// One row per strategy: one device's evaluations, N devices' evaluations
/// and rounds, the two ratios and whether the bar is met.
MarkdownTable batchBenchTable(const BatchBenchReport &report,
                              const BatchBenchBar &bar);
/// Per space: evaluations (1 device) / evaluations and rounds (N devices).
MarkdownTable batchBenchDetail(const BatchBenchReport &report,
                               const std::vector<std::string> &spaces);

/// Where and how a bench ran, for the document's header.
struct BenchRecord {
  std::string date, machine, command;
};

/// The markdown document of a batch bench: what was measured, the bar table,
/// the per-space table and the contract breaches.
std::string batchBenchDocument(const BatchBenchReport &report,
                               const std::vector<BenchSpace> &spaces,
                               const BenchOptions &options,
                               const BenchRecord &record);

} // namespace ktune

#endif
