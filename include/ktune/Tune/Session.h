//===- ktune/Tune/Session.h - One ktune-tune invocation ---------*- C++ -*-===//
//
// Everything ktune-tune does between parsing its options and exiting: read
// the template, manifest and spec (or a T4 recording to replay), build the
// space, open the journal, run the Tuner and write results.json, the
// journal, the T4 file and kernel.tuned.h. The evaluator is supplied by the
// caller, so this library needs neither CUDA nor a GPU.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_TUNE_SESSION_H
#define KTUNE_TUNE_SESSION_H

#include "ktune/Plan/Manifest.h"
#include "ktune/Tune/Evaluator.h"
#include "ktune/Tune/Journal.h"
#include "ktune/Tune/MultiDevice.h"
#include "ktune/Tune/Results.h"
#include "ktune/Tune/Spec.h"
#include "ktune/Tune/Tuner.h"

#include <atomic>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace ktune {

/// This host's workers, as the other hosts of a run must match them.
struct HostWorkers {
  std::string device, arch;
  /// Of everything that decides a measurement: template, manifest and spec
  /// (or the recording and space replayed).
  std::string inputsSha256;
  std::vector<int> gpus;
  bool virtualDevices = false; // a replay: ranks may share a host
};

/// Workers on other hosts, joined to this host's in a run across hosts.
struct ExtraWorkers {
  std::vector<std::unique_ptr<Evaluator>> workers;
  std::vector<int> gpus, ranks;
};
using JoinOthers =
    std::function<Expected<ExtraWorkers>(const HostWorkers &self)>;

struct TuneCommand {
  // What to tune: a template with its manifest and spec, or a recording.
  std::string templatePath;
  std::string specPath;
  std::string manifestPath; // default: the template's name with .json
  std::string kernel;       // default: the spec's kernel
  std::string simulatePath; // a T4 file (plain or gzip) to replay
  std::string spacePath; // a T1 input file: the space instead of the manifest's
  std::string fromResults; // skip tuning: write the header from these results
  /// Tune nothing: choose the compiler, compile the default configuration
  /// and report its command line (SessionReport::compileCommand).
  bool printCompileCommand = false;

  // How.
  std::string strategy = "random";
  nlohmann::json strategyOptions = nlohmann::json::object();
  uint64_t seed = 0;
  std::optional<uint64_t> budget; // per shape
  double timeLimitSeconds = 0;
  size_t topK = 3;
  bool compileOnly = false;
  unsigned simulateDelayMs = 0; // slows replays down (crash tests)
  /// Several devices, one search (identical GPUs): --gpus for a template
  /// (ordinals; empty: the default GPU), --devices N for a replay.
  std::vector<int> gpus;
  unsigned simulateDevices = 1;
  /// Workers per GPU (>1 only to test the multi-GPU path on one device).
  unsigned workersPerGpu = 1;
  /// Across hosts, on rank 0: the other ranks' GPUs, joined once this
  /// host's workers exist (lib/Cluster). This host's workers are rank 0's.
  JoinOthers joinOthers;

  // Where the compiled code goes, and how it is compiled.
  std::string cacheDir;
  int jobs = 0;
  std::string arch;
  /// --compiler: overrides the spec's "compiler" when set.
  std::optional<CompilerChoice> compiler;
  /// The project's compile command (the flags after --), or the build
  /// directory whose compile_commands.json has it (-p, looked up for the
  /// manifest's "original"): replaces the manifest's "compile" when set.
  std::optional<CompileCommandInfo> projectCommand;
  std::string buildPath;
  /// Include directories for both backends (after the manifest's
  /// include_dirs), and for NVRTC only (ktune's nvrtc-compat headers).
  std::vector<std::string> includeDirs;
  std::vector<std::string> nvrtcIncludeDirs;

  // Outputs. Defaults: <stem>.results.json beside the template (in the
  // working directory for --simulate), the journal beside the results,
  // <stem>.tuned.h beside the template; no T4 file unless asked.
  std::string outPath;
  std::string headerPath;
  std::string t4Path;
  std::string journalPath;

  /// Nsight Compute's ncu: once tuned, each shape's default and best
  /// configurations are measured again under it (SessionReport::profiles),
  /// its logs written to profileDir. Empty: no profiling.
  std::string profileWith;
  std::string profileDir;

  ProgressOptions progress;
  const std::atomic<bool> *stopRequested = nullptr;
};

/// A shape's hardware counters, for its default and its best configuration
/// (the same measurement when the default is the best).
struct ShapeProfile {
  Shape shape;
  std::optional<HardwareCounters> defaultCounters, bestCounters;
  std::string error; // why there are none
};

/// What a template session tunes, each read and parsed once: from the files
/// a command names (readTuneInputs), or made in memory by the caller (a
/// round of `ktune run`). The session resolves them and hands them back.
struct TuneInputs {
  std::string templateSource;
  Manifest manifest;
  Spec spec;
  /// A T1 file's space (--space). Once resolved: the space tuned, by
  /// default the kernel's with the spec's domains and constraints.
  std::optional<SpaceDefinition> space;
  /// Of everything that decides a measurement: template, manifest and spec
  /// (and the T1 file).
  std::string sha256;
  /// Once resolved: manifest.kernels[*kernelIndex] is the kernel tuned (in
  /// launcher mode the launcher's entry, added first), and `spec` is
  /// resolved against it (register caps withdrawn unless compile-only).
  std::optional<size_t> kernelIndex;
  std::vector<std::string> notes; // from resolving, for the results

  const ManifestKernel *kernel() const {
    return kernelIndex ? &manifest.kernels[*kernelIndex] : nullptr;
  }
};

/// What an evaluator is asked to be built for.
struct EvaluatorRequest {
  bool compileOnly = false;
  std::string templatePath;
  std::string templateSource;
  const Manifest *manifest = nullptr;
  std::string kernel;
  const Spec *spec = nullptr; // resolved
  std::string cacheDir;
  int jobs = 0;
  std::string arch;
  int gpu = -1; // the GPU to pin the worker to; -1: the default
  /// The spec's choice unless --compiler overrides it.
  CompilerChoice compiler = CompilerChoice::Auto;
  std::string compilerChoiceFrom; // "--compiler", "the spec", ""
  std::optional<CompileCommandInfo> projectCommand;
  std::vector<std::string> includeDirs;
  std::vector<std::string> nvrtcIncludeDirs;
};
using EvaluatorFactory = std::function<Expected<std::unique_ptr<Evaluator>>(
    const EvaluatorRequest &)>;

struct SessionReport {
  TuneResults results;
  std::string resultsPath, journalPath, headerPath, t4Path;
  size_t journalEntriesRead = 0; // on opening (a resumed run has some)
  /// Per GPU when several tuned together (empty otherwise).
  std::vector<WorkerActivity> gpuActivity;
  double wallSeconds = 0;
  bool interrupted = false;
  std::string compileCommand; // with printCompileCommand
  /// A template tuned: the inputs, resolved, as the session tuned with them.
  std::optional<TuneInputs> inputs;
  /// The journal's entries of this tuning (journaledBy the results).
  std::vector<JournalEntry> journal;
  /// With TuneCommand::profileWith: per shape of the results, in order.
  std::vector<ShapeProfile> profiles;
};

/// Runs one invocation. Errors name the file and JSON path they concern.
Expected<SessionReport> runTuneSession(const TuneCommand &command,
                                       const EvaluatorFactory &makeEvaluator);
/// The same with the template's inputs already read: the command's
/// template, manifest and spec paths only name them (in errors, outputs and
/// the compile's include paths).
Expected<SessionReport> runTuneSession(const TuneCommand &command,
                                       TuneInputs inputs,
                                       const EvaluatorFactory &makeEvaluator);

/// Reads the template, manifest, spec and T1 file (--space) `command`
/// names; the manifest defaults to the template's name with .json.
Expected<TuneInputs> readTuneInputs(const TuneCommand &command);
/// sha256 of the texts that decide a measurement, as TuneInputs holds it.
std::string tuneInputsSha256(const std::string &templateSource,
                             const nlohmann::json &manifest,
                             const std::string &specText);

/// This host's workers for `command`, built as runTuneSession builds its
/// own but tuning nothing: what a rank other than 0 evaluates with.
struct RankWorkers {
  HostWorkers self;
  std::vector<std::unique_ptr<Evaluator>> workers;
};
Expected<RankWorkers> prepareRankWorkers(const TuneCommand &command,
                                         const EvaluatorFactory &makeEvaluator);

/// $KTUNE_CACHE_DIR, else $XDG_CACHE_HOME/ktune, else ~/.cache/ktune.
std::string defaultCacheDir();

/// Ctrl-C for a driver: the first sets the flag returned (the session, or
/// the round, finishes with what was found and writes its outputs); a
/// second exits at once with status 130 (the journal keeps every
/// evaluation finished).
const std::atomic<bool> *stopOnInterrupt();

} // namespace ktune

#endif
