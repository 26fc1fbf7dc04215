//===- Session.cpp - One ktune-tune invocation, end to end ----------------===//
//
// What was prepared (SessionPrepare.cpp) is tuned; then results.json, the
// T4 file and kernel.tuned.h are written.
//
//===----------------------------------------------------------------------===//
#include "SessionInternal.h"

#include "ktune/Support/DataPath.h"
#include "ktune/Support/FileUtil.h"
#include "ktune/Support/Try.h"
#include "ktune/Tune/DispatchDescription.h"
#include "ktune/Tune/DispatchHeader.h"
#include "ktune/Tune/Journal.h"
#include "ktune/Tune/Strategy.h"
#include "ktune/Tune/T4.h"

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>

namespace ktune {

namespace fs = std::filesystem;
using nlohmann::json;

std::string defaultCacheDir() {
  if (const char *env = std::getenv("KTUNE_CACHE_DIR"); env && *env)
    return env;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return (fs::path(xdg) / "ktune").string();
  if (const char *home = std::getenv("HOME"); home && *home)
    return (fs::path(home) / ".cache" / "ktune").string();
  return (fs::temp_directory_path() / "ktune-cache").string();
}

namespace {
std::atomic<bool> StopRequested{false};
extern "C" void onInterrupt(int) {
  if (StopRequested.exchange(true))
    std::_Exit(130);
}
} // namespace

const std::atomic<bool> *stopOnInterrupt() {
  std::signal(SIGINT, onInterrupt);
  return &StopRequested;
}

namespace {

std::string besides(const std::string &anchor, const std::string &name) {
  fs::path dir = fs::path(anchor).parent_path();
  return dir.empty() ? name : (dir / name).string();
}

std::string withoutJsonSuffix(const std::string &path) {
  if (path.size() > 5 && path.compare(path.size() - 5, 5, ".json") == 0)
    return path.substr(0, path.size() - 5);
  return path;
}

Status writeHeader(const TuneCommand &cmd, const Prepared &p,
                   const TuneResults &results, const std::string &path) {
  KTUNE_TRY_ASSIGN(auto templateFile,
                   findDataFile("templates/dispatch_header.h.in"));
  KTUNE_TRY_ASSIGN(auto text, readFile(templateFile));
  DispatchHeaderInput in;
  in.kernel = p.inputs->kernel();
  in.spec = &p.inputs->spec;
  in.results = &results;
  in.constraints = p.space.constraints;
  if (in.spec->launcherMode)
    if (const ManifestLauncher *l =
            p.inputs->manifest.findLauncher(in.spec->kernel))
      in.launcherReturns = l->returns;
  // Include the template relative to the header's directory.
  fs::path headerDir = fs::absolute(path).parent_path();
  in.templateInclude =
      fs::absolute(cmd.templatePath).lexically_relative(headerDir).string();
  in.templateFile = fs::path(cmd.templatePath).filename().string();
  KTUNE_TRY_ASSIGN(auto header, renderDispatchHeader(text, templateFile, in));
  KTUNE_TRY(writeFileAtomically(path, header));
  // Its signature and choices as JSON, for programs that call it.
  KTUNE_TRY_ASSIGN(auto description, describeDispatch(in, path));
  return writeFileAtomically(dispatchDescriptionPath(path),
                             description.dump(2) + "\n");
}

/// A session over a recording (no inputs), or over a template's inputs
/// (read by the caller when it did not pass them).
/// Each shape's default and best configurations measured under Nsight
/// Compute, one profiler run per shape.
std::vector<ShapeProfile> profileShapes(const TuneCommand &cmd,
                                        Evaluator &evaluator,
                                        const TuneResults &results) {
  std::vector<ShapeProfile> out;
  for (size_t i = 0; i < results.shapes.size(); ++i) {
    const ShapeResult &sr = results.shapes[i];
    ShapeProfile sp;
    sp.shape = sr.shape;
    std::vector<Configuration> configs = {sr.defaultConfig};
    bool bestDiffers = sr.bestConfig != sr.defaultConfig;
    if (bestDiffers)
      configs.push_back(sr.bestConfig);
    ProfileRequest request;
    request.ncu = cmd.profileWith;
    request.logPath =
        (std::filesystem::path(cmd.profileDir) /
         (results.kernel + ".shape-" + std::to_string(i) + ".ncu.csv"))
            .string();
    auto counters = evaluator.profile(sr.shape, configs, request);
    if (!counters) {
      sp.error = counters.error().message;
    } else {
      sp.defaultCounters = (*counters)[0];
      sp.bestCounters = (*counters)[bestDiffers ? 1 : 0];
    }
    out.push_back(std::move(sp));
  }
  return out;
}

Expected<SessionReport> runSession(const TuneCommand &cmd,
                                   std::optional<TuneInputs> inputs,
                                   const EvaluatorFactory &makeEvaluator) {
  if (cmd.printCompileCommand && !cmd.compileOnly) {
    TuneCommand compileOnly = cmd; // compiling needs no GPU
    compileOnly.compileOnly = true;
    return runSession(compileOnly, std::move(inputs), makeEvaluator);
  }
  bool simulate = !cmd.simulatePath.empty();
  if (simulate && !cmd.templatePath.empty())
    return makeError("give either a template or --simulate, not both");
  if (!simulate && cmd.templatePath.empty())
    return makeError("nothing to tune: give a template (kernel.tpl.cu) or "
                     "--simulate space_T4.json");
  if (simulate && !cmd.headerPath.empty())
    return makeError("--header needs a template and a spec; a replayed "
                     "recording has no kernel to launch",
                     "--header");
  if (simulate && cmd.compileOnly)
    return makeError("--compile-only compiles a template; it does not apply "
                     "to --simulate",
                     "--compile-only");

  SessionReport report;
  bool fromResults = !cmd.fromResults.empty();
  if (!simulate && !inputs) {
    KTUNE_TRY_ASSIGN(inputs, readTuneInputs(cmd));
  }
  KTUNE_TRY_ASSIGN(Prepared p,
                   simulate ? prepareSimulation(cmd)
                            : prepareTemplate(cmd, std::move(*inputs),
                                              makeEvaluator, !fromResults));

  if (cmd.printCompileCommand) {
    if (simulate)
      return makeError("a simulation compiles nothing: --print-compile-command "
                       "needs a template");
    report.compileCommand = p.evaluator->compiler().command;
    return report;
  }

  std::string stem = stemOf(simulate ? cmd.simulatePath : cmd.templatePath);
  report.resultsPath = !cmd.outPath.empty() ? cmd.outPath
                       : simulate
                           ? stem + ".results.json"
                           : besides(cmd.templatePath, stem + ".results.json");
  if (!simulate)
    report.headerPath = !cmd.headerPath.empty()
                            ? cmd.headerPath
                            : besides(cmd.templatePath, stem + ".tuned.h");

  if (fromResults) {
    // Regenerate the header from results written earlier (or by hand).
    KTUNE_TRY_ASSIGN(TuneResults results,
                     readJsonFileAs(cmd.fromResults, resultsFromJson));
    if (results.kernel != p.kernel)
      return makeError("results are for kernel '" + results.kernel +
                           "', the spec for '" + p.kernel + "'",
                       cmd.fromResults + ": kernel");
    KTUNE_TRY(writeHeader(cmd, p, results, report.headerPath));
    report.results = std::move(results);
    report.resultsPath.clear();
    report.inputs = std::move(p.inputs);
    return report;
  }

  report.journalPath =
      !cmd.journalPath.empty()
          ? cmd.journalPath
          : withoutJsonSuffix(report.resultsPath) + ".journal.jsonl";
  KTUNE_TRY_ASSIGN(auto journal, Journal::open(report.journalPath));
  report.journalEntriesRead = journal->entries().size();
  if (std::string note = journal->droppedLineNote(); !note.empty()) {
    // Said even with --quiet: the journal file was changed.
    std::fprintf(stderr, "ktune-tune: note: %s\n", note.c_str());
    p.notes.push_back(note);
  }

  TuneOptions options;
  options.templatePath = p.templatePath;
  options.templateSha256 = p.templateSha256;
  options.kernel = p.kernel;
  options.strategyName = cmd.strategy;
  options.compileOnly = cmd.compileOnly;
  if (!cmd.compileOnly) {
    std::string name = cmd.strategy;
    json strategyOptions = cmd.strategyOptions;
    auto probe = makeStrategy(name, strategyOptions);
    if (!probe)
      return makeError(probe.error().message, "--strategy");
    options.makeStrategy = [name, strategyOptions] {
      return makeStrategy(name, strategyOptions);
    };
  }
  options.seed = cmd.seed;
  // Without a budget, compile-only walks the whole valid space.
  options.budget = cmd.budget.value_or(cmd.compileOnly ? UINT64_MAX : 100);
  options.timeLimitSeconds = cmd.timeLimitSeconds;
  options.topK = cmd.topK;
  options.progress = cmd.progress;
  options.stopRequested = cmd.stopRequested;
  if (p.group) {
    DeviceGroup *group = p.group;
    options.progress.activity = [group] {
      return formatGpuActivityBrief(group->activity());
    };
    ProgressOptions out = cmd.progress;
    group->onWorkerLost([out](const WorkerActivity &a) {
      if (!out.out)
        return;
      std::fprintf(out.out,
                   "%s%s lost (%s): its configuration in flight "
                   "goes to the others\n",
                   out.tty ? "\n" : "", workerLabel(a).c_str(),
                   a.lostReason.c_str());
      std::fflush(out.out);
    });
  }

  Tuner tuner(p.space, p.shapes, *p.evaluator, *journal, options);
  auto started = std::chrono::steady_clock::now();
  KTUNE_TRY_ASSIGN(auto results, tuner.run());
  results.notes.insert(results.notes.end(), p.notes.begin(), p.notes.end());
  report.wallSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started)
          .count();
  if (p.group)
    report.gpuActivity = p.group->activity();
  report.interrupted = cmd.stopRequested && cmd.stopRequested->load();

  KTUNE_TRY(writeFileAtomically(report.resultsPath,
                                resultsToJson(results).dump(2) + "\n"));

  for (const auto &e : journal->entries())
    if (journaledBy(e.key, results))
      report.journal.push_back(e);
  if (!cmd.t4Path.empty()) {
    report.t4Path = cmd.t4Path;
    KTUNE_TRY(writeFileAtomically(cmd.t4Path,
                                  journalToT4(report.journal).dump(1) + "\n"));
  }

  if (!cmd.profileWith.empty() && !simulate && !cmd.compileOnly &&
      !report.interrupted)
    report.profiles = profileShapes(cmd, *p.evaluator, results);

  if (!simulate && !cmd.compileOnly) {
    KTUNE_TRY(writeHeader(cmd, p, results, report.headerPath));
  } else {
    report.headerPath.clear();
  }
  report.results = std::move(results);
  if (p.inputs) {
    report.inputs = std::move(p.inputs);
    report.inputs->space = std::move(p.space);
  }
  return report;
}

} // namespace

Expected<SessionReport> runTuneSession(const TuneCommand &cmd,
                                       const EvaluatorFactory &makeEvaluator) {
  return runSession(cmd, std::nullopt, makeEvaluator);
}

Expected<SessionReport> runTuneSession(const TuneCommand &cmd,
                                       TuneInputs inputs,
                                       const EvaluatorFactory &makeEvaluator) {
  if (!cmd.simulatePath.empty())
    return makeError("a replayed recording has no template inputs",
                     "--simulate");
  return runSession(cmd, std::move(inputs), makeEvaluator);
}

Expected<RankWorkers>
prepareRankWorkers(const TuneCommand &cmd,
                   const EvaluatorFactory &makeEvaluator) {
  if (cmd.simulatePath.empty() == cmd.templatePath.empty())
    return makeError("give either a template or --simulate");
  std::optional<TuneInputs> inputs;
  if (cmd.simulatePath.empty()) {
    KTUNE_TRY_ASSIGN(inputs, readTuneInputs(cmd));
  }
  KTUNE_TRY_ASSIGN(Prepared p, inputs
                                   ? prepareTemplate(cmd, std::move(*inputs),
                                                     makeEvaluator, true, true)
                                   : prepareSimulation(cmd, true));
  return RankWorkers{std::move(p.host), std::move(p.workers)};
}

} // namespace ktune
