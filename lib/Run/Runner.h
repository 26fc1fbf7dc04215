//===- Runner.h - The state of one `ktune run` ------------------*- C++ -*-===//
//
// Run.cpp: the round loop (tune, analyse, stop or re-plan, the best round);
// RunSetup.cpp: specs, backend, the source's analysis and the first plan;
// RunRound.cpp: one round (plan -> template -> tuned kernels);
// RunOutput.cpp: the final files at the top of the output directory.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_LIB_RUN_RUNNER_H
#define KTUNE_LIB_RUN_RUNNER_H

#include "ktune/Planner/ChoosePlan.h"
#include "ktune/Refactor/Refactorer.h"
#include "ktune/Run/Record.h"
#include "ktune/Run/Run.h"
#include "ktune/Run/SyntheticEvaluator.h"
#include "ktune/Target/DeviceLimits.h"

#include "llvm/Support/Error.h"

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ktune::run {

enum class Backend { Gpu, CompileOnly, Synthetic };
std::string backendName(Backend b);

/// An llvm::Error from the refactorer as one of ours. Clang's diagnostics
/// (several lines) go to the log; the error keeps the summary.
Error fromLLVM(llvm::Error error,
               const std::function<void(const std::string &)> &log);

/// The file name without its directory and .cu/.cuh/.cpp/.cc suffix.
std::string fileStem(const std::string &path);
std::string joinNames(const std::vector<std::string> &names);
/// `v` with `digits` digits after the point.
std::string fixed(double v, int digits);

struct SpecFile {
  std::string path;
  nlohmann::json text; // as read
  Spec spec;
};

class Runner {
public:
  explicit Runner(const RunOptions &o) : O(o) {}

  Expected<RunOutcome> run();

private:
  const RunOptions &O;
  RunRecord Record;
  Backend Mode = Backend::Gpu;
  std::optional<SyntheticModel> Synthetic;
  std::vector<int> Gpus;       // --gpus, resolved; empty = one device
  std::string ProfileWith;     // --profile: ncu's path; empty: no counters
  std::vector<SpecFile> Specs; // one per selected kernel, in order
  std::vector<std::string> Kernels;
  /// Per spec, the kernels whose parameters it tunes: its kernel, or in
  /// launcher mode the kernels its launcher launches (set by analyseSource).
  std::vector<std::vector<std::string>> PlanKernels;
  /// Every kernel of PlanKernels, once: what plans are made for.
  std::vector<std::string> plannedKernels() const;
  std::optional<refactor::Analysis> Source;
  SourceTexts Sources;
  DeviceLimits Device = assumedDeviceLimits();
  std::shared_ptr<planner::Planner> TextPlanner;
  std::unique_ptr<Replanner> Replanning; // rules, or TextPlanner's
  std::set<std::string> Retired;         // candidates dropped by a re-plan
  /// Every parameter any round's plan lifted, with its default: names a
  /// spec may use after a re-plan fixed them.
  std::map<std::string, int64_t> KnownDefaults;
  std::chrono::steady_clock::time_point Start;

  void log(const std::string &line) const {
    if (O.log)
      O.log(line);
  }
  std::string out(const std::string &relative) const {
    return (std::filesystem::path(O.outDir) / relative).string();
  }
  std::string stem() const { return fileStem(O.source); }
  std::string headerName(const std::string &kernel) const {
    return Kernels.size() == 1 ? stem() + ".tuned.h" : kernel + ".tuned.h";
  }
  std::string resultsName(const std::string &kernel) const {
    return Kernels.size() == 1 ? "results.json" : kernel + ".results.json";
  }

  // RunSetup.cpp
  /// Everything before round 1: options, specs, planner, the source's
  /// analysis, the backend, the device; then the first plan and the output
  /// directory.
  Expected<planner::ChosenPlan> setUp();
  Status readSpecs();
  Status chooseBackend();
  Status chooseMode();     // GPU, compile-only or synthetic
  Status chooseProfiler(); // --profile: Nsight Compute, after the mode
  Status analyseSource();
  Expected<planner::ChosenPlan> firstPlan();
  EvaluatorFactory evaluatorFactory() const;

  // RunRound.cpp
  Expected<RoundRecord> tuneRound(int round, const Plan &plan,
                                  const std::string &planSource,
                                  double timeLimit);
  /// Tunes kernel `i` with the round's template; fills `kr`. True when
  /// the session was interrupted.
  Expected<bool> tuneKernel(size_t i, const RoundRecord &rec,
                            const refactor::TemplateOutput &made,
                            const std::string &templatePath,
                            const std::string &manifestPath, double timeLimit,
                            KernelRound &kr);
  /// The template and manifest for `plan`, host code guarded for NVRTC,
  /// written to the given paths.
  Expected<refactor::TemplateOutput>
  writeTemplate(const Plan &plan, const std::string &templatePath,
                const std::string &manifestPath, const std::string &origin);

  // Run.cpp
  /// The re-plan after round `round`; false when the run stops there.
  Expected<bool> replanAfter(int round, Plan &next, std::string &nextSource);
  void chooseBestRound(bool compileOnly);

  // RunOutput.cpp
  Status writeFinal(RunOutcome &outcome);
};

} // namespace ktune::run

#endif
