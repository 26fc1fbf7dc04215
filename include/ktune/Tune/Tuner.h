//===- ktune/Tune/Tuner.h - The tuning loop ---------------------*- C++ -*-===//
//
// For each shape: build the search space (manifest domains and constraints,
// the spec's overrides, the problem dimensions fixed), evaluate the default
// configuration first (the reference), let the strategy search within the
// budget, re-time the best few interleaved with the default and pick the
// winner from that. Then choose one general configuration over all shapes.
//
// Every evaluation goes through the journal: one already there is answered
// from it and never repeated, so a killed run resumes where it stopped.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_TUNE_TUNER_H
#define KTUNE_TUNE_TUNER_H

#include "ktune/Expr/Expr.h"
#include "ktune/Plan/Manifest.h"
#include "ktune/Tune/Evaluator.h"
#include "ktune/Tune/Journal.h"
#include "ktune/Tune/Results.h"
#include "ktune/Tune/SearchSpace.h"
#include "ktune/Tune/Spec.h"
#include "ktune/Tune/Strategy.h"

#include <atomic>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ktune {

/// The name of the register-cap dimension added when the spec lists
/// max_registers (0 = no cap).
inline constexpr const char *MaxRegistersParam = "maxrregcount";

/// Parameters with domains and defaults, and constraints over them and the
/// problem dimensions: what a SearchSpace is built from for each shape.
struct SpaceDefinition {
  std::vector<SpaceParam> params;
  std::vector<std::string> constraints;
  expr::Dialect dialect = expr::Dialect::Ktune;
  /// Parameters of configuration-table cases: when their cases are reached,
  /// over the problem dimensions. At a shape that reaches none, such a
  /// parameter stays at its default (a constraint says so) and means nothing.
  std::map<std::string, std::string> caseConditions;
  /// Fixed arguments (kind fixed_arg): the argument's value over the
  /// problem dimensions. A value other than the default holds only at the
  /// shapes where the argument has it (a constraint says so).
  std::map<std::string, std::string> fixedArgs;
};

/// The configuration as it acts at `shape`: parameters of cases the shape
/// does not reach set to their defaults (what the shape runs is the same),
/// and fixed arguments another shape's value set to their defaults (read
/// at run time: what the dispatch header launches there).
Configuration onShape(const SpaceDefinition &space, const Shape &shape,
                      Configuration config);
/// One configuration holding every shape's tuned values of the cases it
/// reaches (the first shape's where two disagree): the configuration table
/// with each case's winners. Nullopt without case parameters.
std::optional<Configuration>
mergedCases(const SpaceDefinition &space, const Configuration &defaultConfig,
            const std::vector<std::pair<Shape, Configuration>> &bests);

/// The manifest kernel's tunable parameters with the spec's domain
/// overrides, the manifest's and the spec's constraints, and a
/// "maxrregcount" dimension when the spec lists max_registers.
Expected<SpaceDefinition> spaceFromManifest(const ManifestKernel &kernel,
                                            const Spec &spec);

using StrategyFactory = std::function<Expected<std::unique_ptr<Strategy>>()>;

struct ProgressOptions {
  std::FILE *out = nullptr; // nullptr: silent
  bool tty = false;         // rewrite one line in place
  uint64_t every = 10;      // without a TTY: a line every N evaluations
  /// What each GPU does, appended to each line (several GPUs).
  std::function<std::string()> activity;
};

struct TuneOptions {
  std::string templatePath;   // for the results file
  std::string templateSha256; // journal key: what was tuned
  std::string kernel;
  std::string strategyName; // for the results file
  StrategyFactory makeStrategy;
  uint64_t seed = 0;
  /// Evaluations per shape, the default configuration included; failed
  /// ones count. Evaluations already in the journal count too.
  uint64_t budget = 100;
  /// Wall time for the whole run, compilation included; 0 = none. The
  /// remaining time is shared evenly by the shapes still to search.
  double timeLimitSeconds = 0;
  /// Finalists re-timed (besides the default) per shape.
  size_t topK = 3;
  /// The smallest lead over the default, after the interleaved re-timing,
  /// for which a shape leaves its default; a larger relative IQR of either
  /// time raises it (Tuner::settle).
  double minEffect = 0.01;
  /// Compile and prune only, walking the valid space in order up to the
  /// budget: no strategy, no timing.
  bool compileOnly = false;
  /// Configurations handed to Evaluator::prepare at once in compile-only
  /// mode and for general-configuration candidates.
  size_t prepareBatch = 16;
  /// Candidates per shape considered for the general configuration.
  size_t generalCandidatesPerShape = 3;
  ProgressOptions progress;
  /// Set (e.g. from a SIGINT handler) to stop searching and finish with what
  /// was found.
  const std::atomic<bool> *stopRequested = nullptr;
};

class Tuner {
public:
  Tuner(SpaceDefinition space, std::vector<Shape> shapes, Evaluator &evaluator,
        Journal &journal, TuneOptions options);

  /// Runs every shape and chooses the general configuration. Evaluator
  /// exceptions propagate (the journal holds everything finished).
  Expected<TuneResults> run();

private:
  /// A shape's finalists (the default first, then by search time) and
  /// their search evaluations.
  struct Finalists {
    std::vector<Configuration> configs;
    std::vector<EvalResult> searched;
  };
  /// Finalists whose re-timing waits for the other shapes'.
  struct DeferredRetime {
    size_t position; // in TuneResults::shapes
    Finalists finalists;
    bool aside = false; // queued to re-time while the search goes on
  };
  /// Searches one shape; re-times its finalists now, or, given `deferred`,
  /// adds them there and settles from the search times meanwhile.
  Expected<ShapeResult> tuneShape(size_t shapeIndex, double deadline,
                                  std::vector<DeferredRetime> *deferred);
  /// The winner, speedup and finalists of `result`, from `retimed` (the
  /// finalists re-timed) where it holds the default's time, else from the
  /// search.
  void settle(ShapeResult &result, const Finalists &f,
              const std::vector<EvalResult> &retimed);
  Status retimeDeferred(std::vector<ShapeResult> &shapes,
                        const std::vector<DeferredRetime> &deferred);
  /// The expected cost of re-timing `configs` at `shape` (for ordering).
  double retimeCost(const Shape &shape,
                    const std::vector<Configuration> &configs) const;
  std::optional<std::vector<EvalResult>>
  retimeFromJournal(const Shape &shape,
                    const std::vector<Configuration> &configs);
  Status recordRetime(const Shape &shape,
                      const std::vector<Configuration> &configs,
                      const std::vector<EvalResult> &retimed);
  Expected<ShapeResult> compileShape(size_t shapeIndex);
  /// Times `configs` (the default first) interleaved, or reads a complete
  /// earlier re-timing of the same configurations back from the journal.
  Expected<std::vector<EvalResult>>
  retimeInterleaved(const Shape &shape,
                    const std::vector<Configuration> &configs);
  /// Evaluates what the journal does not hold yet of `tasks` on every
  /// device at once, journaled under `phase` as each finishes.
  Status evaluateTogether(const std::vector<Evaluator::ShapedConfig> &tasks,
                          JournalPhase phase);
  /// Several devices: every shape's default (its reference) at once, before
  /// the shapes are searched one after another.
  Status evaluateDefaultsTogether();
  void compileWholeSmallSpaces();
  Status adoptGeneralWhereFaster(ShapeResult &shape,
                                 const Configuration &general,
                                 double generalUs);

  SpaceDefinition Space;
  std::vector<Shape> Shapes;
  Evaluator &Eval;
  Journal &Log;
  TuneOptions Options;
  struct State;
  std::shared_ptr<State> S;
};

} // namespace ktune

#endif
