//===- ktune/Tune/Results.h - What a tuning run found -----------*- C++ -*-===//
//
// Per shape: the best configuration and its time against the default's, both
// re-timed interleaved at the end so the speedup compares like with like. Over
// all shapes: one general configuration, the best geometric-mean speedup among
// configurations valid and measured on every shape. Written as results.json
// (schema: docs/schemas.md, ## results) and read back to regenerate the
// dispatch header without tuning again.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_TUNE_RESULTS_H
#define KTUNE_TUNE_RESULTS_H

#include "ktune/Tune/Evaluator.h"
#include "ktune/Tune/Journal.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ktune {

inline constexpr const char *ResultsVersion = "results/1";

struct Measured {
  Configuration config;
  EvalResult result;
};

struct ShapeResult {
  Shape shape;
  Configuration defaultConfig;
  std::optional<Timing> defaultTime;
  /// Equal to defaultConfig when nothing beat it (or nothing was timed).
  Configuration bestConfig;
  std::optional<Timing> bestTime;
  /// defaultTime / bestTime; 1 when either is unknown.
  double speedup = 1.0;
  /// True when best and default times come from the final interleaved
  /// re-timing; false when that failed and search times were used.
  bool retimed = false;
  /// Budgeted evaluations at this shape (journal included), by status.
  uint64_t evaluations = 0;
  StatusCounts statusCounts;
  /// "budget", "time limit", "space exhausted", "interrupted", "compile only"
  std::string stopReason;
  /// True when the general configuration beat this shape's own winner in a
  /// re-timing with the default, and became the shape's best.
  bool adoptedGeneral = false;
  /// The finalists as re-timed, the default first.
  std::vector<Measured> finalists;
  /// How the re-timed choice was made: the fastest finalist's lead over the
  /// default (default median / its median - 1) and the noise threshold it had
  /// to beat; below it the default is kept, so that the same command makes
  /// the same choice. Both 0 without a re-timing.
  double margin = 0;
  double noiseThreshold = 0;
  bool keptWithinNoise = false; // the default kept though another was faster
};

struct GeneralShapeTime {
  double speedup = 1.0; // default median / this configuration's median
  double medianUs = 0;  // this configuration's median at the shape
};

struct GeneralResult {
  Configuration config;
  double geomeanSpeedup = 1.0;
  std::vector<GeneralShapeTime> perShape; // in TuneResults::shapes order
  size_t candidates = 0;                  // configurations compared
};

/// The evaluations that failed one way (compile errors, wrong results, ...)
/// and the reason most of them share.
struct FailureSummary {
  uint64_t count = 0;
  std::string commonestReason; // the first compiler message where there is one
  uint64_t commonestCount = 0;
};
using FailureSummaries = std::map<EvalStatus, FailureSummary, StatusNameOrder>;

/// Counts failed evaluations by status and by reason.
class FailureTally {
public:
  void add(const EvalResult &result);
  FailureSummaries summaries() const;

private:
  std::map<EvalStatus, std::map<std::string, uint64_t>, StatusNameOrder>
      Reasons;
};

/// A reason as failures are grouped by it: a compile error's first compiler
/// message ("k.tpl.cu:12: error: ..."), else the reason's first line.
std::string reasonKey(const EvalResult &result);

struct TuneResults {
  std::string kernel;
  std::string templatePath;
  std::string templateSha256;
  std::string device;
  std::string arch;
  std::string strategy;
  uint64_t seed = 0;
  uint64_t budget = 0;
  bool compileOnly = false;
  std::vector<std::string> params; // tunable parameters, space order
  std::vector<ShapeResult> shapes;
  std::optional<GeneralResult> general;
  /// Which compiler built the configurations and why (empty backend for
  /// replays).
  CompilerReport compiler;
  /// Budgeted evaluations that failed, by status (pruned ones included).
  FailureSummaries failures;
  /// What a person should know about the run (a spec's register caps left
  /// out, ...), one sentence each.
  std::vector<std::string> notes;
};

/// True when a journal entry belongs to the run these results come from
/// (template, kernel, device, architecture and compiler).
bool journaledBy(const JournalKey &key, const TuneResults &results);

/// "warning: 45 of 60 configurations did not compile; the commonest reason
/// (40 of them): ..." when most evaluations failed the same way; empty
/// otherwise. Pruned configurations never count as failures here.
std::string failureWarning(const TuneResults &results);

/// The error a run stops with when the default configuration (the
/// reference) fails at a shape: its status, the first compiler message and
/// its file:line.
Error defaultFailureError(const Shape &shape, const Configuration &config,
                          const EvalResult &result);

nlohmann::json resultsToJson(const TuneResults &results);
Expected<TuneResults> resultsFromJson(const nlohmann::json &json);

/// Median time (µs) of `config` at `shape`, or nullopt when it is invalid
/// there or failed. Implementations look the journal up first and evaluate
/// only what was never measured.
using MeasureFn =
    std::function<std::optional<double>(const Shape &, const Configuration &)>;

/// The configuration with the best geometric-mean speedup over `shapes`
/// among `candidates` (and the default) that measure on every shape. Shapes
/// where the default itself fails add no factor to the mean (and rule the
/// default out). nullopt when no candidate measures everywhere.
std::optional<GeneralResult> chooseGeneralConfiguration(
    const std::vector<Shape> &shapes, const Configuration &defaultConfig,
    const std::vector<Configuration> &candidates, const MeasureFn &measure);

/// The final table: one row per shape, then the general configuration.
std::string formatResultsTable(const TuneResults &results);

/// "BLOCK_SIZE=256 VEC=8" and "num_tokens=16 hidden=4096".
std::string configText(const Configuration &config);
std::string shapeText(const Shape &shape);

} // namespace ktune

#endif
