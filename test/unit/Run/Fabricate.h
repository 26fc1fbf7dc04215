//===- Fabricate.h - Tuning rounds made up for the tests --------*- C++ -*-===//
//
// Results and journals as a brute-force round over a small space would
// write them, with times from a function of the configuration and the
// shape, so Analysis and Replan can be tested on known answers.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_TEST_UNIT_RUN_FABRICATE_H
#define KTUNE_TEST_UNIT_RUN_FABRICATE_H

#include "ktune/Run/Analysis.h"
#include "ktune/Tune/SearchSpace.h"

#include <functional>

namespace ktune::testing {

using TimeFn =
    std::function<std::optional<double>(const Shape &, const Configuration &)>;

struct FabricatedRound {
  SpaceDefinition space;
  Spec spec;
  TuneResults results;
  std::vector<JournalEntry> journal;
};

/// Every valid configuration at every shape, the default first; the noise
/// is the IQR as a fraction of each time.
inline FabricatedRound fabricate(SpaceDefinition space,
                                 const std::vector<Shape> &shapes,
                                 const TimeFn &time, double noise,
                                 std::string bytes = "") {
  FabricatedRound r;
  r.space = space;
  r.spec.kernel = "k";
  r.spec.bytes = std::move(bytes);
  r.results.kernel = "k";
  r.results.templateSha256 = "sha";
  r.results.device = "NVIDIA H200";
  r.results.arch = "sm_90";
  for (const auto &p : space.params)
    r.results.params.push_back(p.name);
  for (const auto &shape : shapes) {
    auto s = SearchSpace::create(space.params, space.constraints,
                                 expr::Dialect::Ktune, shape);
    ShapeResult sr;
    sr.shape = shape;
    sr.defaultConfig = s->toConfig(*s->defaultPoint());
    std::vector<Configuration> order{sr.defaultConfig};
    s->forEachValid([&](const Point &p) {
      Configuration c = s->toConfig(p);
      if (c != sr.defaultConfig)
        order.push_back(c);
      return true;
    });
    std::optional<double> best;
    for (size_t i = 0; i < order.size(); ++i) {
      JournalEntry e;
      e.key = {"sha", "k", "NVIDIA H200", "sm_90", shape, order[i]};
      e.phase = i == 0 ? JournalPhase::Default : JournalPhase::Search;
      if (auto t = time(shape, order[i])) {
        e.result.time = Timing{*t, *t * noise, 100};
        e.result.resources.registers = 32;
        if (!best || *t < *best) {
          best = *t;
          sr.bestConfig = order[i];
          sr.bestTime = e.result.time;
        }
        if (i == 0)
          sr.defaultTime = e.result.time;
        ++sr.statusCounts[EvalStatus::Ok];
      } else {
        e.result.status = EvalStatus::CompileError;
        e.result.reason = "fabricated failure";
        ++sr.statusCounts[EvalStatus::CompileError];
      }
      r.journal.push_back(e);
    }
    sr.evaluations = order.size();
    if (sr.defaultTime && sr.bestTime)
      sr.speedup = sr.defaultTime->medianUs / sr.bestTime->medianUs;
    sr.retimed = true;
    r.results.shapes.push_back(sr);
  }
  return r;
}

inline run::KernelAnalysis analyse(const FabricatedRound &r,
                                   std::optional<double> tbps = 4.25) {
  run::KernelRoundInput in;
  in.results = &r.results;
  in.journal = &r.journal;
  in.space = &r.space;
  in.spec = &r.spec;
  in.roofline = {tbps, "test"};
  auto a = run::analyzeKernel(in);
  if (!a)
    throw std::runtime_error(a.error().str());
  return *a;
}

} // namespace ktune::testing

#endif
