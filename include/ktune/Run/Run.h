//===- ktune/Run/Run.h - `ktune run`: refactor, tune, re-plan ---*- C++ -*-===//
//
// The loop of `ktune run kernel.cu --spec spec.json --out-dir tuned/`:
//
//   round 1: plan (heuristic, a --plan file or a planner) -> refactor the
//            original source with it -> tune every selected kernel
//   after each round: analyse (Analysis.h), re-plan (Replan.h), and stop
//            when the plan no longer changes, a round gains no more than
//            the timing noise, or after the rounds asked for
//   finally: the best round's template, manifest, plan and results at the
//            top of the output directory, the dispatch header, run.json and
//            report.html.
//
// Without a GPU (or with compileOnly) round 1 compiles every configuration
// and the run stops there. Guide: docs/run.md.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_RUN_RUN_H
#define KTUNE_RUN_RUN_H

#include "ktune/Refactor/CudaParser.h"
#include "ktune/Run/Analysis.h"
#include "ktune/Run/Replan.h"
#include "ktune/Tune/Session.h"

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ktune::run {

struct RunOptions {
  std::string source; // the original .cu file
  /// One spec per kernel to tune (each names its kernel).
  std::vector<std::string> specs;
  std::string outDir;
  /// Kernels to lift and tune; empty = the specs' kernels.
  std::vector<std::string> kernels;

  // Planning.
  std::string planPath;                  // round 1's plan, instead of a planner
  std::string plannerSpec = "heuristic"; // heuristic | command:... | openai:...
  std::string model;
  bool strictPlanner = false;

  // Tuning.
  int rounds = 3;
  std::string strategy = "bayes";
  std::optional<uint64_t> budget; // per shape and round
  double timeLimitSeconds = 0;    // the whole run; 0 = none
  uint64_t seed = 0;
  bool compileOnly = false;
  std::string cacheDir;
  int jobs = 0;
  std::string arch;
  /// "all" or GPU ordinals such as 0,2,3: a worker per GPU, one search.
  /// With --synthetic-times, the ordinals are virtual devices.
  std::string gpus;
  /// --compiler: NVRTC, nvcc, or auto (the spec's choice when not given).
  std::optional<CompilerChoice> compiler;

  // Parsing the original source (stage 1).
  refactor::CompileCommand compile;
  refactor::ParserOptions parser;

  // Analysis.
  std::optional<double> rooflineTBps;
  AnalysisOptions analysis;
  /// --profile: each shape's default and best configurations measured
  /// under Nsight Compute once tuned (hardware counters in the analysis).
  bool profile = false;

  /// Testing aid: a "synthetic/1" file whose formulas stand in for the GPU.
  std::string syntheticTimes;

  /// One line per event ("round 1: refactored ...").
  std::function<void(const std::string &)> log;
  ProgressOptions progress;
  const std::atomic<bool> *stopRequested = nullptr;
  /// The command line, for the record and the report.
  std::string commandLine;
};

struct RunOutcome {
  int rounds = 0;    // rounds tuned
  int bestRound = 0; // whose template is at the top of outDir
  bool compileOnly = false;
  bool interrupted = false;
  std::string stopReason;
  std::string reportPath, headerPath, runJsonPath;
  /// The final table (formatResultsTable of the best round, per kernel).
  std::string table;
};

/// Runs the loop. Errors are one line naming the file (and JSON path or
/// file:line:col) they concern; the output directory then holds what was
/// finished.
Expected<RunOutcome> runKtune(const RunOptions &options);

} // namespace ktune::run

#endif
