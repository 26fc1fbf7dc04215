// Test doubles for the tuning loop: an evaluator computing times from the
// configuration, and a strategy walking the space in order.
#ifndef KTUNE_TEST_UNIT_TUNE_FAKES_H
#define KTUNE_TEST_UNIT_TUNE_FAKES_H

#include "ktune/Tune/Evaluator.h"
#include "ktune/Tune/Strategy.h"
#include "ktune/Tune/Tuner.h"

#include <functional>
#include <map>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

namespace ktune::testing {

struct SimulatedCrash : std::runtime_error {
  SimulatedCrash() : std::runtime_error("simulated crash") {}
};

/// Times from a function of (shape, config); nullopt = a compile error.
class FakeEvaluator : public Evaluator {
public:
  using TimeFn = std::function<std::optional<double>(const Shape &,
                                                     const Configuration &)>;
  explicit FakeEvaluator(TimeFn f) : F(std::move(f)) {}

  std::string device() const override { return "fake GPU"; }
  std::string arch() const override { return "sm_00"; }
  CompilerReport compiler() const override { return Compiler; }
  void prepare(const std::vector<Configuration> &upcoming) override {
    Prepared.insert(Prepared.end(), upcoming.begin(), upcoming.end());
  }
  EvalResult evaluate(const Shape &shape,
                      const Configuration &config) override {
    if (CrashAfter && Calls.size() >= *CrashAfter)
      throw SimulatedCrash();
    if (DelayMs)
      std::this_thread::sleep_for(std::chrono::milliseconds(DelayMs));
    Calls.emplace_back(shape, config);
    EvalResult r;
    if (auto t = F(shape, config)) {
      r.time = Timing{*t, *t * 0.01, 100, false, true};
      r.resources.registers = 32;
    } else {
      r.status = EvalStatus::CompileError;
      r.reason = FailureReason ? FailureReason(config)
                               : "error: too many resources requested";
    }
    return r;
  }
  std::vector<EvalResult>
  retime(const Shape &shape,
         const std::vector<Configuration> &configs) override {
    ++RetimeCalls;
    std::vector<EvalResult> out;
    for (const auto &c : configs) {
      EvalResult r;
      auto t = RetimeF ? RetimeF(shape, c) : F(shape, c);
      if (t)
        r.time = Timing{*t, *t * RetimeSpread, 500, false, true};
      else
        r.status = EvalStatus::RuntimeError;
      out.push_back(r);
    }
    return out;
  }

  TimeFn F;
  TimeFn RetimeF; // when set, re-timing answers differently from search
  double RetimeSpread = 0.01; // a re-timing's IQR over its median
  /// The compile error's reason per configuration (default: one for all).
  std::function<std::string(const Configuration &)> FailureReason;
  CompilerReport Compiler; // what compiler() reports
  std::optional<size_t> CrashAfter;
  unsigned DelayMs = 0;
  std::vector<std::pair<Shape, Configuration>> Calls;
  std::vector<Configuration> Prepared;
  int RetimeCalls = 0;
};

/// Evaluates valid points in order, prefetching batches ahead.
class ScanStrategy : public Strategy {
public:
  std::string name() const override { return "scan"; }
  void run(const SearchSpace &space, Objective &objective,
           std::mt19937_64 &) override {
    std::vector<Point> points;
    space.forEachValid([&](const Point &p) {
      points.push_back(p);
      return true;
    });
    for (size_t i = 0; i < points.size() && !objective.exhausted(); ++i) {
      if (i % 4 == 0)
        objective.prefetch(std::vector<Point>(
            points.begin() + i,
            points.begin() + std::min(points.size(), i + 4)));
      if (!objective.seen(points[i]))
        objective.evaluate(points[i]);
    }
  }
};

/// Random valid points, repeats skipped (answered free by the objective).
class RandomDouble : public Strategy {
public:
  std::string name() const override { return "random-double"; }
  void run(const SearchSpace &space, Objective &objective,
           std::mt19937_64 &rng) override {
    for (int tries = 0; tries < 10000 && !objective.exhausted(); ++tries)
      if (auto p = space.randomValid(rng);
          p && !(UnseenOnly && objective.seen(*p)))
        objective.evaluate(*p);
  }

protected:
  bool UnseenOnly = false;
};

/// Random valid points it has not seen yet: how sampling without
/// replacement behaves, and why seen() must not reveal the journal early.
class RandomUnseen : public RandomDouble {
public:
  RandomUnseen() { UnseenOnly = true; }
  std::string name() const override { return "random-unseen"; }
};

/// Options of a run scanning the space in order, `budget` evaluations.
inline TuneOptions scanOptions(uint64_t budget) {
  TuneOptions o;
  o.templateSha256 = "tplsha";
  o.kernel = "k";
  o.strategyName = "scan";
  o.makeStrategy = []() -> Expected<std::unique_ptr<Strategy>> {
    return std::make_unique<ScanStrategy>();
  };
  o.budget = budget;
  return o;
}

} // namespace ktune::testing

#endif
