//===- ktune/Tune/Strategy.h - Search strategies ----------------*- C++ -*-===//
#ifndef KTUNE_TUNE_STRATEGY_H
#define KTUNE_TUNE_STRATEGY_H

#include "ktune/Tune/SearchSpace.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace ktune {

/// What a strategy optimises: lower is better. Owned by the Tuner, which
/// journals every evaluation, enforces the budget and answers repeated
/// points from its cache without spending budget.
class Objective {
public:
  virtual ~Objective() = default;
  /// The time of a point, or nullopt when it failed (pruned, compile error,
  /// wrong result, ...). Failed points count as evaluations.
  virtual std::optional<double> evaluate(const Point &p) = 0;
  /// True once a point was evaluated in this run. A point known from the
  /// journal of an earlier (killed) run becomes seen when asked for, which
  /// costs no budget: resumed, a seeded strategy repeats its choices.
  virtual bool seen(const Point &p) const = 0;
  /// The cached outcome of a seen point.
  virtual std::optional<double> cached(const Point &p) const = 0;
  /// Budget (evaluations or wall time) spent: strategies stop.
  virtual bool exhausted() const = 0;
  /// Hint: points the strategy will evaluate next (compiled ahead).
  virtual void prefetch(const std::vector<Point> &upcoming) {}

  // Batches (several devices). With parallelism() == 1 the strategies take
  // their sequential path unchanged, so one device makes the very choices
  // it made before batches existed.

  /// Evaluations that run at the same time (devices or workers).
  virtual size_t parallelism() const { return 1; }
  /// How many new points to propose now: parallelism() capped by the budget
  /// left (0 once exhausted).
  virtual size_t batchSize() const { return exhausted() ? 0 : 1; }
  /// Evaluates distinct points together; outcomes in the same order. Seen
  /// points are answered from the cache.
  virtual std::vector<std::optional<double>>
  evaluateBatch(const std::vector<Point> &points) {
    std::vector<std::optional<double>> out;
    for (const auto &p : points)
      out.push_back(evaluate(p));
    return out;
  }
};

class Strategy {
public:
  virtual ~Strategy() = default;
  virtual std::string name() const = 0;
  /// Searches until the objective is exhausted or the space is covered.
  virtual void run(const SearchSpace &space, Objective &objective,
                   std::mt19937_64 &rng) = 0;
};

/// One row of the strategy table (lib/Tune/Strategies/Strategies.def).
struct StrategyInfo {
  std::string name;
  std::string summary;              // one line
  std::vector<std::string> options; // every option it reads
};
/// Every strategy, in the table's order.
std::vector<StrategyInfo> strategyTable();
/// The strategies' names, in the table's order.
std::vector<std::string> strategyNames();

/// The strategy of the table named `name`, with its options (documented in
/// docs/strategies.md); unknown names and options are errors.
Expected<std::unique_ptr<Strategy>>
makeStrategy(const std::string &name, const nlohmann::json &options = {});

} // namespace ktune

#endif
