//===- ShapeObjective.h - The objective of one shape ------------*- C++ -*-===//
//
// Private to lib/Tune: what a strategy searches at one shape. Outcomes come
// from the journal where it has them (free), else from the evaluator, and
// each new evaluation is appended to the journal and counted against the
// budget.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_LIB_TUNE_SHAPEOBJECTIVE_H
#define KTUNE_LIB_TUNE_SHAPEOBJECTIVE_H

#include "TunerProgress.h"

#include "ktune/Tune/Evaluator.h"
#include "ktune/Tune/Journal.h"
#include "ktune/Tune/SearchSpace.h"
#include "ktune/Tune/Strategy.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <vector>

namespace ktune::tuner {

/// The time of a successful measurement; nullopt for every failure.
std::optional<double> outcomeOf(const EvalResult &r);

/// The Objective of one shape: journal-backed, budgeted.
class ShapeObjective : public Objective {
public:
  struct Context {
    const SearchSpace &space;
    const Shape &shape;
    Evaluator &eval;
    Journal &journal;
    JournalKey keyBase; // shape and config filled per evaluation
    uint64_t budget;
    Clock::time_point deadline;
    bool hasDeadline;
    const std::atomic<bool> *stop;
    std::function<void(const ShapeObjective &)> onEvaluation;
  };

  explicit ShapeObjective(Context c);

  std::optional<double> evaluate(const Point &p) override {
    if (auto it = Known.find(p); it != Known.end()) {
      // From the journal (budgeted already when it was made) or asked
      // before in this run: free.
      Asked.insert(p);
      return it->second;
    }
    if (exhausted())
      return std::nullopt;
    Asked.insert(p);
    return run(p, JournalPhase::Search);
  }

  /// Evaluates the reference whatever the budget says.
  std::optional<double> evaluateDefault(const Point &p) {
    Asked.insert(p);
    if (auto it = Known.find(p); it != Known.end())
      return it->second;
    return run(p, JournalPhase::Default);
  }

  /// Points asked for in this run. Journal points become seen when asked
  /// (for free), so a deterministic strategy resumed after a kill makes the
  /// very choices an uninterrupted run makes.
  bool seen(const Point &p) const override { return Asked.count(p) != 0; }
  std::optional<double> cached(const Point &p) const override {
    auto it = Known.find(p);
    return it == Known.end() ? std::nullopt : it->second;
  }
  bool exhausted() const override {
    return Spent >= C.budget || timeUp() || stopped();
  }
  void prefetch(const std::vector<Point> &upcoming) override {
    std::vector<Configuration> configs;
    for (const auto &p : upcoming)
      if (!Known.count(p) && C.space.isValid(p))
        configs.push_back(C.space.toConfig(p));
    if (!configs.empty())
      C.eval.prepare(configs);
  }

  size_t parallelism() const override {
    return std::max<size_t>(1, C.eval.parallelism());
  }
  size_t batchSize() const override {
    if (exhausted())
      return 0;
    return static_cast<size_t>(
        std::min<uint64_t>(C.budget - Spent, parallelism()));
  }
  /// New points go to the evaluator together; each is journaled as it
  /// finishes.
  std::vector<std::optional<double>>
  evaluateBatch(const std::vector<Point> &points) override;

  bool timeUp() const { return C.hasDeadline && Clock::now() >= C.deadline; }
  bool stopped() const { return C.stop && C.stop->load(); }

  uint64_t spent() const { return Spent; }
  uint64_t resumed() const { return Resumed; }
  Status status() const { return JournalStatus; }
  const std::optional<EvalResult> result(const Point &p) const {
    auto it = Results.find(p);
    if (it == Results.end())
      return std::nullopt;
    return it->second;
  }
  /// Budgeted points in the order they were first evaluated.
  const std::vector<Point> &order() const { return Order; }
  /// Every point with a known outcome.
  const std::map<Point, EvalResult> &results() const { return Results; }
  std::optional<double> bestUs() const {
    std::optional<double> best;
    for (const auto &[p, t] : Known)
      if (t && (!best || *t < *best))
        best = t;
    return best;
  }
  uint64_t newEvaluations() const { return New; }
  double newSeconds() const { return NewSeconds; }

private:
  bool sameRun(const JournalKey &k) const {
    return k.sameRun(C.keyBase) && k.shape == C.shape;
  }

  std::optional<double> run(const Point &p, JournalPhase phase);
  /// Journals and records one finished evaluation.
  std::optional<double> record(const Point &p, JournalEntry &e,
                               Journal::Sync sync, Clock::time_point begin,
                               double searchMs);

  Context C;
  std::map<Point, std::optional<double>> Known;
  std::set<Point> Asked;
  std::map<Point, EvalResult> Results;
  std::set<Point> Budgeted;
  std::vector<Point> Order;
  uint64_t Spent = 0, Resumed = 0, New = 0;
  double NewSeconds = 0;
  Clock::time_point LastEnd;
  Status JournalStatus;
};

} // namespace ktune::tuner

#endif
