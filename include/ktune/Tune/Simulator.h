//===- ktune/Tune/Simulator.h - Replaying recorded tuning runs --*- C++ -*-===//
//
// Strategies are compared, tested and debugged without a GPU by replaying
// outcomes recorded earlier: a T4 file (Kernel Tuner / benchmark_hub output,
// every configuration of a space with its `invalidity` and time) or a ktune
// journal. ReplayEvaluator is an ordinary Evaluator over such a recording;
// simulateRun drives one strategy against any Evaluator with a budget of
// unique evaluations and returns what it asked for, in order.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_TUNE_SIMULATOR_H
#define KTUNE_TUNE_SIMULATOR_H

#include "ktune/Tune/Evaluator.h"
#include "ktune/Tune/SearchSpace.h"
#include "ktune/Tune/Strategy.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ktune {

/// An Evaluator answering from a recording. A configuration the recording
/// has no entry for fails (status Pruned, reason "not in the recording"),
/// as does one recorded as failed; both count as evaluations.
class ReplayEvaluator : public Evaluator {
public:
  /// A T4 object: results[] with configuration, invalidity ("correct",
  /// "compile", "runtime", "constraints", ...) and measurements (the one
  /// named "time", in metadata.timeunit: milliseconds unless it says
  /// "seconds" or "microseconds"). Times are kept in microseconds.
  static Expected<ReplayEvaluator> fromT4(const nlohmann::json &t4,
                                          std::string device);
  /// Reads a T4 file, plain or gzip. The device defaults to the file name
  /// up to "_T4" ("A100_T4.json.gz" -> "A100").
  static Expected<ReplayEvaluator> readT4File(const std::string &path,
                                              std::string device = "");
  /// A ktune journal (one JSON object per line: key.config, key.shape,
  /// status, time_us.median). When one key appears more than once, the last
  /// line wins (a resumed run re-measured it). `kernel` selects one kernel
  /// when the journal holds several.
  static Expected<ReplayEvaluator> fromJournal(std::string_view text,
                                               const std::string &origin,
                                               const std::string &kernel = "");
  static Expected<ReplayEvaluator>
  readJournalFile(const std::string &path, const std::string &kernel = "");

  std::string device() const override;
  std::string arch() const override;
  /// A recording with a single shape answers for any shape (T4 files have
  /// none); otherwise the shape must match a recorded one.
  EvalResult evaluate(const Shape &shape, const Configuration &config) override;

  /// Number of recorded (shape, configuration) outcomes.
  size_t size() const;
  std::vector<Shape> shapes() const;
  /// The recorded outcomes at a shape (see evaluate for shape matching).
  std::vector<std::pair<Configuration, EvalResult>>
  records(const Shape &shape = {}) const;
  /// The best time (µs) among ok outcomes at a shape.
  std::optional<double> bestTimeUs(const Shape &shape = {}) const;

private:
  const std::map<Configuration, EvalResult> *table(const Shape &shape) const;
  std::string Device, Arch;
  std::map<Shape, std::map<Configuration, EvalResult>> Tables;
};

/// An Evaluator over a function of the configuration (synthetic spaces with
/// known structure); nullopt means the configuration fails at run time.
class FunctionEvaluator : public Evaluator {
public:
  using Function = std::function<std::optional<double>(const Configuration &)>;
  explicit FunctionEvaluator(Function f, std::string device = "synthetic")
      : F(std::move(f)), Device(std::move(device)) {}
  std::string device() const override { return Device; }
  std::string arch() const override { return "none"; }
  EvalResult evaluate(const Shape &shape, const Configuration &config) override;

private:
  Function F;
  std::string Device;
};

/// One evaluation a strategy asked for, in order.
struct SimulatedEvaluation {
  Point point;
  Configuration config;
  EvalStatus status = EvalStatus::Ok;
  std::optional<double> timeUs; // set when status is Ok
  /// 1-based wall-clock round it ran in: devices evaluate one point each
  /// per round, so a batch of k points on d devices takes ceil(k/d) rounds.
  uint64_t round = 0;
};

struct SimulationOptions {
  /// Unique evaluations, failed ones included (as Kernel Tuner counts).
  uint64_t budget = 220;
  uint64_t seed = 0;
  Shape shape;
  /// Virtual devices evaluating at once: strategies propose batches of this
  /// size (1: one point at a time, the sequential strategies).
  unsigned devices = 1;
  /// Called after each evaluation (e.g. to journal it).
  std::function<void(const SimulatedEvaluation &)> onEvaluation;
};

struct SimulationResult {
  std::vector<SimulatedEvaluation> evaluations;
  /// Contract breaches by the strategy, which tests require to be zero:
  /// evaluate() on a point already seen (answered from the cache, not
  /// counted), on a point outside the constraints, or after the budget was
  /// spent (refused).
  uint64_t repeatedRequests = 0;
  uint64_t invalidRequests = 0;
  uint64_t overBudgetRequests = 0;

  std::optional<double> bestTimeUs() const;
  /// 1-based number of evaluations after which the best time found is at
  /// most `targetUs`; nullopt when never.
  std::optional<size_t> evaluationsToReach(double targetUs) const;
  /// The round after which the best time found is at most `targetUs`.
  std::optional<uint64_t> roundsToReach(double targetUs) const;
  /// Wall-clock rounds used in all.
  uint64_t rounds() const {
    return evaluations.empty() ? 0 : evaluations.back().round;
  }
};

/// Runs `strategy` on `space` against `evaluator` until the budget is spent,
/// the strategy returns (space exhausted), or it stops asking. Seeded: the
/// same seed, space and evaluator give the same sequence.
SimulationResult simulateRun(const SearchSpace &space, Evaluator &evaluator,
                             Strategy &strategy,
                             const SimulationOptions &options);

/// The search space of a recording when no T1 file is at hand: every
/// parameter with the values recorded for it, constrained to the recorded
/// configurations only through the evaluator (unrecorded ones fail).
Expected<SearchSpace> spaceFromRecords(const ReplayEvaluator &replay,
                                       const Shape &shape = {});

} // namespace ktune

#endif
