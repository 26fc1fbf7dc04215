//===- ktune/Tune/StrategyBench.h - Comparing strategies offline -*- C++
//-*-===//
//
// The measure Kernel Tuner's strategy comparisons use: for each strategy and
// space, the median over seeds of the number of unique evaluations (failed
// ones included) until the best time found is within a tolerance of the
// space's optimum; budget + 1 when a run never gets there.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_TUNE_STRATEGYBENCH_H
#define KTUNE_TUNE_STRATEGYBENCH_H

#include "ktune/Support/Statistics.h"
#include "ktune/Tune/Simulator.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

namespace ktune {

struct BenchSpace {
  std::string name;
  SearchSpace space;
  /// Must answer concurrent calls (ReplayEvaluator does).
  std::shared_ptr<Evaluator> evaluator;
  double optimumUs = 0; // the best time of the whole space
};

struct BenchStrategy {
  std::string label; // column or row name
  std::string name;  // for makeStrategy
  nlohmann::json options = nlohmann::json::object();
};

struct BenchOptions {
  uint64_t budget = 220;
  unsigned seeds = 10;
  uint64_t firstSeed = 1;
  double tolerance = 0.03;
  unsigned threads = 1;
  /// Virtual devices: strategies propose batches of this size.
  unsigned devices = 1;
};

struct BenchCell {
  std::string strategy, space;
  /// Per seed: evaluations to reach the target; budget + 1 when never.
  std::vector<uint64_t> evaluations;
  double median = 0;
  /// Strategy contract breaches summed over seeds (must be zero).
  uint64_t breaches = 0;
  /// Per seed: wall-clock rounds to reach the target (the evaluations when
  /// there is one device); when never, the round after the budget
  /// (ceil(budget / devices) + 1).
  std::vector<uint64_t> rounds;
  double medianRounds = 0;
};

/// Runs every strategy on every space with every seed (in parallel over
/// `threads`); cells in strategy-major order.
Expected<std::vector<BenchCell>>
runStrategyBench(const std::vector<BenchSpace> &spaces,
                 const std::vector<BenchStrategy> &strategies,
                 const BenchOptions &options);

/// A space whose parameters list their values in a seeded random order: the
/// same points and times, but index neighbourhoods no longer mean "nearby
/// values". A check that a strategy does not depend on ordered domains.
Expected<SearchSpace>
permuteDomains(const SearchSpace &space,
               const std::vector<std::string> &constraints,
               expr::Dialect dialect, uint64_t seed);

/// A markdown table: header cells, then rows of (first cell, other cells).
struct MarkdownTable {
  std::vector<std::string> header;
  std::vector<std::pair<std::string, std::vector<std::string>>> rows;
};
/// The first table in a markdown text (e.g. a published baseline).
Expected<MarkdownTable> parseMarkdownTable(std::string_view text);

/// Median evaluations per strategy (rows) and space (columns, in `spaces`
/// order), with a sum column; row labels are `prefix` + strategy label.
MarkdownTable benchTable(const std::vector<BenchCell> &cells,
                         const std::vector<std::string> &spaces,
                         const std::string &prefix);
std::string renderMarkdownTable(const MarkdownTable &table);

/// Spaces with known structure for checking that a strategy's defaults are
/// not fitted to one benchmark: "gemm" (a tiled matrix-multiply performance
/// model, ~10^5 points, shared-memory constraints and register-pressure
/// failures) and "rugged" (a smooth bowl with periodic ripples, 10^6
/// cartesian points). Times are deterministic; optima are found by enumeration.
std::vector<BenchSpace> syntheticBenchSpaces();

/// The machine a bench ran on: CPU model, threads, kernel.
std::string benchMachine();

/// Today's date (UTC), as YYYY-MM-DD.
std::string benchDate();

} // namespace ktune

#endif
