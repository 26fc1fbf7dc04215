//===- SessionInternal.h - What a tuning session works with -----*- C++ -*-===//
//
// Private to lib/Tune: a session first prepares (SessionPrepare.cpp: reads the
// template, manifest and spec or the recording, builds the space and the
// evaluators), then tunes and writes its outputs (Session.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_LIB_TUNE_SESSIONINTERNAL_H
#define KTUNE_LIB_TUNE_SESSIONINTERNAL_H

#include "ktune/Tune/Session.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ktune {

struct Prepared {
  SpaceDefinition space;
  std::vector<Shape> shapes;
  std::unique_ptr<Evaluator> evaluator;
  // The evaluator when it is a group of devices. Kept here rather than found
  // by dynamic_cast: evaluators from libraries built without RTTI have none.
  DeviceGroup *group = nullptr;
  // Rank workers only: the workers, not grouped.
  std::vector<std::unique_ptr<Evaluator>> workers;
  HostWorkers host;
  std::string kernel, templatePath, templateSha256;
  // Template mode only: the inputs, resolved (their space is `space`).
  std::optional<TuneInputs> inputs;
  std::vector<std::string> notes; // for the results
};

/// "rmsnorm.tpl.cu" -> "rmsnorm", "A100_T4.json.gz" -> "A100_T4".
std::string stemOf(const std::string &path);

/// A recording replayed (--simulate): its space, or the T1 file's, and
/// virtual devices. `workersOnly`: a rank's workers, not grouped.
Expected<Prepared> prepareSimulation(const TuneCommand &cmd,
                                     bool workersOnly = false);

/// A template with its manifest and spec: the kernel, the resolved spec, the
/// space and, when `needEvaluator`, the evaluator (one per GPU and worker).
Expected<Prepared> prepareTemplate(const TuneCommand &cmd, TuneInputs inputs,
                                   const EvaluatorFactory &makeEvaluator,
                                   bool needEvaluator,
                                   bool workersOnly = false);

} // namespace ktune

#endif
