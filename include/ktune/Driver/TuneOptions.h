//===- ktune/Driver/TuneOptions.h - Tuning options of the tools -*- C++ -*-===//
//
// The tuning options that ktune-tune and `ktune run` both take (--strategy,
// --budget, --time-limit, --seed, --compile-only, --cache-dir, --jobs,
// --gpus, --arch, --compiler), declared once for CLI11. The values go
// straight into the tool's own command structure, which holds the defaults.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_DRIVER_TUNEOPTIONS_H
#define KTUNE_DRIVER_TUNEOPTIONS_H

#include "ktune/Tune/Spec.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace CLI {
class App;
} // namespace CLI

namespace ktune::driver {

/// Where the tuning options' values go.
struct TuningTargets {
  std::string &strategy;
  std::optional<uint64_t> &budget; // set when --budget is given
  double &timeLimitSeconds;
  uint64_t &seed;
  bool &compileOnly;
  std::string &cacheDir;
  int &jobs;
  std::string &gpus; // the text: "all" or ordinals such as 0,2,3
  std::string &arch;
  std::optional<CompilerChoice> &compiler; // set when --compiler is given
};

/// The tuning fields of a TuneCommand or a run::RunOptions (they share the
/// names); --gpus's text goes to `gpus`.
template <class Command>
TuningTargets tuningTargets(Command &c, std::string &gpus) {
  return {c.strategy, c.budget,      c.timeLimitSeconds,
          c.seed,     c.compileOnly, c.cacheDir,
          c.jobs,     gpus,          c.arch,
          c.compiler};
}

/// What the options apply to, which is all their help texts differ in.
enum class TuningScope {
  Session, // ktune-tune: one tuning session
  Rounds,  // `ktune run`: rounds of refactoring and tuning
};

/// Declares the tuning options on `app`, in the order of the header comment.
void addTuningOptions(CLI::App &app, TuningTargets targets, TuningScope scope);

/// "Search strategy: brute_force random ...": the strategy table's names.
std::string strategyOptionHelp();

/// --strategy-options' text as a JSON object.
Expected<nlohmann::json> parseStrategyOptions(const std::string &text);

} // namespace ktune::driver

#endif
