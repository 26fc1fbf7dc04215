//===- Session.cpp - One ktune-tune invocation, end to end ----------------===//
#include "ktune/Tune/Session.h"

#include "ktune/Plan/CompileDatabase.h"
#include "ktune/Support/DataPath.h"
#include "ktune/Support/FileUtil.h"
#include "ktune/Support/Sha256.h"
#include "ktune/Support/Try.h"
#include "ktune/Tune/DispatchDescription.h"
#include "ktune/Tune/DispatchHeader.h"
#include "ktune/Tune/Journal.h"
#include "ktune/Tune/Simulator.h"
#include "ktune/Tune/Strategy.h"
#include "ktune/Tune/T1.h"
#include "ktune/Tune/T4.h"

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

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

/// Slows an evaluator down, so a test can kill a run in the middle.
class DelayedEvaluator : public Evaluator {
public:
  DelayedEvaluator(std::unique_ptr<Evaluator> inner, unsigned delayMs)
      : Inner(std::move(inner)), DelayMs(delayMs) {}
  std::string device() const override { return Inner->device(); }
  std::string arch() const override { return Inner->arch(); }
  void prepare(const std::vector<Configuration> &upcoming) override {
    Inner->prepare(upcoming);
  }
  EvalResult evaluate(const Shape &shape,
                      const Configuration &config) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(DelayMs));
    return Inner->evaluate(shape, config);
  }
  std::vector<EvalResult>
  retime(const Shape &shape,
         const std::vector<Configuration> &configs) override {
    return Inner->retime(shape, configs);
  }

private:
  std::unique_ptr<Evaluator> Inner;
  unsigned DelayMs;
};

/// "rmsnorm.tpl.cu" -> "rmsnorm", "A100_T4.json.gz" -> "A100_T4".
std::string stemOf(const std::string &path) {
  std::string name = fs::path(path).filename().string();
  for (const char *suffix :
       {".json.gz", ".tpl.cu", ".tpl.cuh", ".json", ".cu", ".cuh", ".gz"})
    if (name.size() > std::strlen(suffix) &&
        name.compare(name.size() - std::strlen(suffix), std::string::npos,
                     suffix) == 0)
      return name.substr(0, name.size() - std::strlen(suffix));
  return fs::path(name).stem().string();
}

std::string besides(const std::string &anchor, const std::string &name) {
  fs::path dir = fs::path(anchor).parent_path();
  return dir.empty() ? name : (dir / name).string();
}

std::string withoutJsonSuffix(const std::string &path) {
  if (path.size() > 5 && path.compare(path.size() - 5, 5, ".json") == 0)
    return path.substr(0, path.size() - 5);
  return path;
}

/// The T1 hook: a Kernel Tuner T1 input file as the space.
Expected<SpaceDefinition> spaceFromT1(const std::string &path) {
  KTUNE_TRY_ASSIGN(auto t1, readT1File(path));
  SpaceDefinition def;
  def.params = t1.params;
  def.constraints = t1.conditions;
  def.dialect = expr::Dialect::Python;
  return def;
}

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
  // Template mode only.
  std::optional<Manifest> manifest;
  std::optional<Spec> spec;
  const ManifestKernel *manifestKernel = nullptr;
  std::vector<std::string> notes; // for the results
};

/// The session's evaluator over `workers` (on `gpus`): a group, joined by
/// the other hosts' workers in a run across hosts; or, for a rank other
/// than 0, the workers themselves.
Status groupWorkers(const TuneCommand &cmd, Prepared &p,
                    std::vector<std::unique_ptr<Evaluator>> workers,
                    std::vector<int> gpus, bool workersOnly) {
  p.host.device = workers[0]->device();
  p.host.arch = workers[0]->arch();
  p.host.gpus = gpus;
  if (workersOnly) {
    p.workers = std::move(workers);
    return {};
  }
  std::vector<int> ranks;
  if (cmd.joinOthers) {
    KTUNE_TRY_ASSIGN(ExtraWorkers others, cmd.joinOthers(p.host));
    ranks.assign(workers.size(), 0);
    for (size_t i = 0; i < others.workers.size(); ++i) {
      workers.push_back(std::move(others.workers[i]));
      gpus.push_back(others.gpus[i]);
      ranks.push_back(others.ranks[i]);
    }
  }
  KTUNE_TRY_ASSIGN(auto group, DeviceGroup::create(std::move(workers),
                                                   std::move(gpus), ranks));
  p.group = group.get();
  p.evaluator = std::move(group);
  return {};
}

Expected<Prepared> prepareSimulation(const TuneCommand &cmd,
                                     bool workersOnly = false) {
  Prepared p;
  KTUNE_TRY_ASSIGN(auto text, readMaybeGzipFile(cmd.simulatePath));
  p.templateSha256 = sha256Hex(text);
  p.host.inputsSha256 = p.templateSha256;
  p.host.virtualDevices = true;
  KTUNE_TRY_ASSIGN(auto t4, parseJson(text, cmd.simulatePath));
  std::string device = stemOf(cmd.simulatePath);
  if (auto pos = device.find("_T4"); pos != std::string::npos && pos > 0)
    device = device.substr(0, pos);
  auto replay = ReplayEvaluator::fromT4(t4, device);
  if (!replay)
    return std::unexpected(withContext(replay.error(), cmd.simulatePath));
  p.templatePath = cmd.simulatePath;

  if (!cmd.spacePath.empty()) {
    KTUNE_TRY_ASSIGN(p.space, spaceFromT1(cmd.spacePath));
    KTUNE_TRY_ASSIGN(auto spaceText, readFile(cmd.spacePath));
    p.host.inputsSha256 = sha256Hex(p.host.inputsSha256 + spaceText);
    auto t1 = readT1File(cmd.spacePath);
    p.kernel = t1 && !t1->kernelName.empty() ? t1->kernelName : "";
  } else {
    auto space = spaceFromRecords(*replay);
    if (!space)
      return std::unexpected(withContext(space.error(), cmd.simulatePath));
    p.space.params = space->params();
  }
  if (p.kernel.empty())
    p.kernel = cmd.kernel.empty() ? "simulated" : cmd.kernel;

  // A recording names no default: the first configuration it lists is the
  // reference, unless the T1 file gave defaults.
  const json &results = t4["results"];
  if (!results.empty() && results[0].contains("configuration")) {
    const json &first = results[0]["configuration"];
    for (auto &param : p.space.params)
      if (!param.defaultValue && first.contains(param.name) &&
          first[param.name].is_number_integer())
        param.defaultValue = first[param.name].get<int64_t>();
  }
  p.shapes = {Shape{}};
  auto shared = std::make_shared<ReplayEvaluator>(std::move(*replay));
  unsigned workers =
      std::max(1u, cmd.simulateDevices) * std::max(1u, cmd.workersPerGpu);
  auto oneDevice = [&]() -> std::unique_ptr<Evaluator> {
    std::unique_ptr<Evaluator> eval = std::make_unique<SharedEvaluator>(shared);
    if (cmd.simulateDelayMs)
      eval = std::make_unique<DelayedEvaluator>(std::move(eval),
                                                cmd.simulateDelayMs);
    return eval;
  };
  if (workers == 1 && !cmd.joinOthers && !workersOnly) {
    p.evaluator = oneDevice();
    return p;
  }
  // Virtual devices over the one recording: one search, batches.
  std::vector<std::unique_ptr<Evaluator>> devices;
  std::vector<int> numbers;
  for (unsigned d = 0; d < workers; ++d) {
    devices.push_back(oneDevice());
    numbers.push_back(static_cast<int>(d / std::max(1u, cmd.workersPerGpu)));
  }
  KTUNE_TRY(groupWorkers(cmd, p, std::move(devices), std::move(numbers),
                         workersOnly));
  return p;
}

Expected<Prepared> prepareTemplate(const TuneCommand &cmd,
                                   const EvaluatorFactory &makeEvaluator,
                                   bool needEvaluator, std::string &source,
                                   bool workersOnly = false) {
  Prepared p;
  p.templatePath = cmd.templatePath;
  KTUNE_TRY_ASSIGN(source, readFile(cmd.templatePath));
  p.templateSha256 = sha256Hex(source);

  std::string manifestPath = cmd.manifestPath;
  if (manifestPath.empty()) {
    fs::path t(cmd.templatePath);
    manifestPath = (t.parent_path() / (t.stem().string() + ".json")).string();
  }
  auto mj = readJsonFile(manifestPath);
  if (!mj)
    return makeError(mj.error().message + " (the manifest; give --manifest "
                                          "if it is elsewhere)",
                     mj.error().where);
  KTUNE_TRY_ASSIGN(p.manifest,
                   withContext(manifestFromJson(*mj), manifestPath));

  if (cmd.specPath.empty())
    return makeError("a spec is needed (--spec spec.json): the shapes, "
                     "buffers and tolerances to tune with");
  KTUNE_TRY_ASSIGN(Spec spec, readJsonFileAs(cmd.specPath, specFromJson));
  KTUNE_TRY_ASSIGN(auto specText, readFile(cmd.specPath));
  p.host.inputsSha256 = sha256Hex(p.templateSha256 + mj->dump() + specText);

  std::string kernelName = cmd.kernel.empty() ? spec.kernel : cmd.kernel;
  if (spec.launcherMode) {
    // The launcher is the entry point: tuned as a kernel would be, found
    // first by its name.
    if (auto added = addLauncherEntry(*p.manifest, spec.kernel); !added)
      return std::unexpected(withContext(added.error(), cmd.specPath));
  }
  p.manifestKernel = p.manifest->findKernel(kernelName);
  if (!p.manifestKernel) {
    std::string known;
    for (const auto &k : p.manifest->kernels)
      known += (known.empty() ? "" : ", ") + k.name;
    return makeError("no kernel '" + kernelName +
                         "' in the manifest (it has: " + known + ")",
                     cmd.kernel.empty() ? cmd.specPath + ": kernel"
                                        : std::string("--kernel"));
  }
  auto resolved = resolveSpec(std::move(spec), *p.manifestKernel);
  if (!resolved)
    return std::unexpected(withContext(resolved.error(), cmd.specPath));
  p.spec = std::move(*resolved);
  if (!cmd.compileOnly)
    if (auto note = withdrawRegisterCaps(*p.spec))
      p.notes.push_back(*note);
  p.kernel = p.manifestKernel->name;

  if (!cmd.spacePath.empty()) {
    KTUNE_TRY_ASSIGN(p.space, spaceFromT1(cmd.spacePath));
    KTUNE_TRY_ASSIGN(auto spaceText, readFile(cmd.spacePath));
    p.host.inputsSha256 = sha256Hex(p.host.inputsSha256 + spaceText);
  } else {
    auto def = spaceFromManifest(*p.manifestKernel, *p.spec);
    if (!def)
      return std::unexpected(withContext(def.error(), cmd.specPath));
    p.space = std::move(*def);
  }
  p.shapes = p.spec->allShapes();

  if (needEvaluator) {
    EvaluatorRequest req;
    req.compileOnly = cmd.compileOnly;
    req.templatePath = cmd.templatePath;
    req.templateSource = source;
    req.manifest = &*p.manifest;
    req.kernel = p.kernel;
    req.spec = &*p.spec;
    req.cacheDir = cmd.cacheDir.empty() ? defaultCacheDir() : cmd.cacheDir;
    req.jobs = cmd.jobs;
    req.arch = cmd.arch;
    req.compiler = cmd.compiler.value_or(p.spec->compiler);
    req.compilerChoiceFrom = cmd.compiler ? "--compiler"
                             : p.spec->compiler != CompilerChoice::Auto
                                 ? "the spec"
                                 : "";
    req.projectCommand = cmd.projectCommand;
    if (!req.projectCommand && !cmd.buildPath.empty()) {
      // The command that compiles the file the template was made from.
      fs::path dir = fs::path(manifestPath).parent_path();
      std::string original = p.manifest->original.empty()
                                 ? cmd.templatePath
                                 : (dir / p.manifest->original).string();
      KTUNE_TRY_ASSIGN(
          req.projectCommand,
          withContext(compileCommandFromDatabase(cmd.buildPath, original),
                      "-p " + cmd.buildPath));
    }
    req.includeDirs = cmd.includeDirs;
    req.nvrtcIncludeDirs = cmd.nvrtcIncludeDirs;
    if (cmd.gpus.empty() && cmd.workersPerGpu <= 1 && !cmd.joinOthers &&
        !workersOnly) {
      KTUNE_TRY_ASSIGN(p.evaluator, makeEvaluator(req));
    } else {
      // A worker per GPU (pinned), one search over all of them.
      std::vector<int> gpus =
          cmd.gpus.empty() ? std::vector<int>{-1} : cmd.gpus;
      std::vector<std::unique_ptr<Evaluator>> workers;
      std::vector<int> numbers;
      for (int gpu : gpus)
        for (unsigned w = 0; w < std::max(1u, cmd.workersPerGpu); ++w) {
          req.gpu = gpu;
          auto eval = makeEvaluator(req);
          if (!eval)
            return std::unexpected(withContext(
                eval.error(), "GPU " + std::to_string(std::max(gpu, 0))));
          workers.push_back(std::move(*eval));
          numbers.push_back(std::max(gpu, 0));
        }
      KTUNE_TRY(groupWorkers(cmd, p, std::move(workers), std::move(numbers),
                             workersOnly));
    }
  }
  return p;
}

Status writeHeader(const TuneCommand &cmd, const Prepared &p,
                   const TuneResults &results, const std::string &path) {
  KTUNE_TRY_ASSIGN(auto templateFile,
                   findDataFile("templates/dispatch_header.h.in"));
  KTUNE_TRY_ASSIGN(auto text, readFile(templateFile));
  DispatchHeaderInput in;
  in.kernel = p.manifestKernel;
  in.spec = &*p.spec;
  in.results = &results;
  in.constraints = p.space.constraints;
  if (p.spec->launcherMode)
    if (const ManifestLauncher *l = p.manifest->findLauncher(p.spec->kernel))
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

} // namespace

Expected<SessionReport> runTuneSession(const TuneCommand &cmd,
                                       const EvaluatorFactory &makeEvaluator) {
  if (cmd.printCompileCommand && !cmd.compileOnly) {
    TuneCommand compileOnly = cmd; // compiling needs no GPU
    compileOnly.compileOnly = true;
    return runTuneSession(compileOnly, makeEvaluator);
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
  std::string source;
  bool fromResults = !cmd.fromResults.empty();
  KTUNE_TRY_ASSIGN(Prepared p, simulate
                                   ? prepareSimulation(cmd)
                                   : prepareTemplate(cmd, makeEvaluator,
                                                     !fromResults, source));

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

  if (!cmd.t4Path.empty()) {
    std::vector<JournalEntry> ours;
    for (const auto &e : journal->entries())
      if (journaledBy(e.key, results))
        ours.push_back(e);
    report.t4Path = cmd.t4Path;
    KTUNE_TRY(
        writeFileAtomically(cmd.t4Path, journalToT4(ours).dump(1) + "\n"));
  }

  if (!simulate && !cmd.compileOnly) {
    KTUNE_TRY(writeHeader(cmd, p, results, report.headerPath));
  } else {
    report.headerPath.clear();
  }
  report.results = std::move(results);
  return report;
}

Expected<RankWorkers>
prepareRankWorkers(const TuneCommand &cmd,
                   const EvaluatorFactory &makeEvaluator) {
  if (cmd.simulatePath.empty() == cmd.templatePath.empty())
    return makeError("give either a template or --simulate");
  std::string source;
  KTUNE_TRY_ASSIGN(Prepared p,
                   cmd.simulatePath.empty()
                       ? prepareTemplate(cmd, makeEvaluator, true, source, true)
                       : prepareSimulation(cmd, true));
  return RankWorkers{std::move(p.host), std::move(p.workers)};
}

} // namespace ktune
