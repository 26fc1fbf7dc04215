//===- ktune/Run/Record.h - Everything a `ktune run` did --------*- C++ -*-===//
//
// The record of a run: per round the plan and where it came from, the
// template, each kernel's results, journal and analysis, the re-plan
// decision with its reasons and the stop decision. Written as run.json
// ("run/1", docs/run.md#outputs) and rendered as report.html (Report.h).
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_RUN_RECORD_H
#define KTUNE_RUN_RECORD_H

#include "ktune/Plan/Plan.h"
#include "ktune/Run/Analysis.h"
#include "ktune/Run/Replan.h"
#include "ktune/Tune/Journal.h"
#include "ktune/Tune/MultiDevice.h"
#include "ktune/Tune/Results.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace ktune::run {

inline constexpr const char *RunRecordVersion = "run/1";

struct KernelRound {
  std::string kernel;
  TuneResults results;
  /// This kernel's entries of the round's journal, in order.
  std::vector<JournalEntry> journal;
  KernelAnalysis analysis;
  std::string resultsPath; // relative to the output directory
  /// Per GPU when several tuned together (--gpus), and the session's wall
  /// time: evaluations per GPU and the speedup over one GPU.
  std::vector<WorkerActivity> gpus;
  double tuneSeconds = 0;
};

struct RoundRecord {
  int round = 1;
  Plan plan;
  /// Where the plan came from: "heuristic", "file plan.json",
  /// "command:... (applied)", or the re-plan of the round before.
  std::string planSource;
  std::vector<std::string> planningMessages;
  std::string dir; // "round-1", relative to the output directory
  std::string templateFile, manifestFile;
  std::vector<std::string> refactorNotes;
  std::vector<KernelRound> kernels;
  /// Decided after this round (absent after the last).
  std::optional<ReplanDecision> replan;
  std::optional<StopDecision> stop;
  double seconds = 0;
};

struct RunRecord {
  std::string source; // the original file, as given
  std::string commandLine;
  std::string startedAt; // UTC
  std::string backend;   // "gpu", "compile-only", "synthetic"
  std::string device, arch;
  int maxThreadsPerSM = 2048; // for occupancy in the report
  std::string strategy;
  uint64_t seed = 0;
  std::optional<uint64_t> budget;
  int roundsAsked = 0;
  Roofline roofline;
  std::vector<RoundRecord> rounds;
  int bestRound = 0;
  std::string bestRoundReason;
  std::string stopReason;
  std::vector<std::string> notes;
};

/// run.json: everything but the journals (they are beside it, per round).
nlohmann::json runRecordToJson(const RunRecord &record);

} // namespace ktune::run

#endif
