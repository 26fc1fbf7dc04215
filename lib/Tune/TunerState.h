//===- TunerState.h - What the tuner's files share -------------*- C++ -*-===//
//
// The state of one Tuner::run and the journal keys, shared by Tuner.cpp
// (the loop), TunerCompileOnly.cpp (--compile-only) and TunerRetime.cpp (the
// interleaved re-timing of finalists).
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_LIB_TUNE_TUNERSTATE_H
#define KTUNE_LIB_TUNE_TUNERSTATE_H

#include "TunerProgress.h"

#include "ktune/Support/Sha256.h"
#include "ktune/Tune/Journal.h"
#include "ktune/Tune/Results.h"
#include "ktune/Tune/SearchSpace.h"
#include "ktune/Tune/Tuner.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace ktune {

/// The search space at `shape`; its errors name the shape.
inline Expected<SearchSpace> spaceAt(const SpaceDefinition &def,
                                     const Shape &shape) {
  return withContext(
      SearchSpace::create(def.params, def.constraints, def.dialect, shape),
      "shape " + shapeText(shape));
}

/// The journal key of every evaluation of this run, before its shape and
/// configuration are filled in.
inline JournalKey journalKeyBase(const TuneOptions &options,
                                 const Evaluator &eval) {
  JournalKey key{options.templateSha256,
                 options.kernel,
                 eval.device(),
                 eval.arch(),
                 {},
                 {}};
  key.compiler = journalCompiler(eval.compiler());
  return key;
}

//===----------------------------------------------------------------------===//
// Shared state of a run
//===----------------------------------------------------------------------===//

struct Tuner::State {
  explicit State(ProgressOptions o) : progress(o) {}
  tuner::Clock::time_point start = tuner::Clock::now();
  tuner::Progress progress;
  uint64_t newEvaluations = 0; // made by this process
  double newEvaluationSeconds = 0;
  std::vector<std::optional<SearchSpace>> spaces; // per shape
  FailureTally failures; // budgeted evaluations of every shape
};

/// Names a re-timing batch by its configurations.
inline std::string
retimeBatchPrefix(const std::vector<Configuration> &configs) {
  std::string text;
  for (const auto &c : configs)
    text += nlohmann::json(c).dump() + ";";
  return sha256Hex(text).substr(0, 16);
}

} // namespace ktune

#endif
