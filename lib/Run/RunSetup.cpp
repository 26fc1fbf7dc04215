//===- RunSetup.cpp - `ktune run` before round 1
//---------------------------===//
//
// The options checked, the specs read, the planner parsed, the source
// analysed, the backend chosen (GPU, compile-only or synthetic) and the
// first plan chosen (planner::choosePlan, as ktune-refactor chooses it).
//
//===----------------------------------------------------------------------===//
#include "Runner.h"

#include "ktune/Refactor/ToolSupport.h"
#include "ktune/Support/EnumNames.h"
#include "ktune/Support/FileUtil.h"
#include "ktune/Support/Try.h"
#include "ktune/Target/DeviceLimits.h"
#include "ktune/Tune/MultiDevice.h"

#ifdef KTUNE_HAVE_CUDA
#include "ktune/Cuda/CudaEvaluator.h"
#include "ktune/Cuda/Ncu.h"
#endif

#include <cstdio>

namespace ktune::run {

namespace fs = std::filesystem;

namespace {
constexpr EnumName<Backend> BackendNames[] = {
    {Backend::Gpu, "gpu"},
    {Backend::CompileOnly, "compile-only"},
    {Backend::Synthetic, "synthetic"},
};
} // namespace

std::string backendName(Backend b) {
  return std::string(nameOf(BackendNames, b, "gpu"));
}

Error fromLLVM(llvm::Error error,
               const std::function<void(const std::string &)> &log) {
  refactor::ErrorText text = refactor::errorText(std::move(error));
  auto logLines = [&](const std::string &lines) {
    for (size_t start = 0; log && start < lines.size();) {
      size_t end = std::min(lines.find('\n', start), lines.size());
      log(lines.substr(start, end - start));
      start = end + 1;
    }
  };
  logLines(text.diagnostics);
  // Plan errors come one per line: keep the first as the message, log all.
  std::string summary = text.summary;
  if (auto nl = summary.find('\n'); nl != std::string::npos) {
    logLines(summary);
    summary = summary.substr(0, nl) + " (and more, above)";
  }
  return Error{summary, ""};
}

std::string fileStem(const std::string &path) {
  std::string name = fs::path(path).filename().string();
  for (const char *suffix : {".cu", ".cuh", ".cpp", ".cc"}) {
    std::string s = suffix;
    if (name.size() > s.size() &&
        name.compare(name.size() - s.size(), s.size(), s) == 0)
      return name.substr(0, name.size() - s.size());
  }
  return fs::path(name).stem().string();
}

std::string joinNames(const std::vector<std::string> &names) {
  std::string s;
  for (const auto &n : names)
    s += (s.empty() ? "" : ", ") + n;
  return s;
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

Status Runner::readSpecs() {
  if (O.specs.empty())
    return makeError("a spec is needed (--spec spec.json): the shapes, "
                     "buffers and tolerances to tune with",
                     "--spec");
  std::vector<SpecFile> all;
  for (const auto &path : O.specs) {
    KTUNE_TRY_ASSIGN(auto j, readJsonFile(path));
    KTUNE_TRY_ASSIGN(auto spec, withContext(specFromJson(j), path));
    all.push_back({path, std::move(j), std::move(spec)});
  }
  Kernels = O.kernels;
  if (Kernels.empty())
    for (const auto &s : all)
      Kernels.push_back(s.spec.kernel);
  for (const auto &k : Kernels) {
    const SpecFile *found = nullptr;
    for (const auto &s : all)
      if (sameKernel(s.spec.kernel, k))
        found = &s;
    if (!found)
      return makeError("no spec names kernel '" + k +
                           "': give one with --spec for each kernel to tune",
                       "--kernel");
    Specs.push_back(*found);
  }
  return {};
}

Status Runner::chooseBackend() {
  KTUNE_TRY(chooseMode());
  KTUNE_TRY(chooseProfiler());
  if (O.gpus.empty())
    return {};
  if (O.compileOnly)
    return makeError("compile-only runs time nothing: drop --gpus", "--gpus");
  if (Mode == Backend::CompileOnly) {
    log("no GPU to time on: --gpus is ignored");
    return {};
  }
  // Synthetic times have as many virtual devices as one asks for.
  int available = Mode == Backend::Synthetic ? MaxVirtualDevices : 0;
#ifdef KTUNE_HAVE_CUDA
  if (Mode == Backend::Gpu)
    available = cudaDeviceCount();
#endif
  KTUNE_TRY_ASSIGN(Gpus, parseGpuList(O.gpus, available));
  if (Gpus.size() > 1)
    log("tuning on " + std::to_string(Gpus.size()) +
        (Mode == Backend::Synthetic ? " virtual devices" : " GPUs") +
        ", one search");
  return {};
}

Status Runner::chooseProfiler() {
  if (!O.profile)
    return {};
  if (O.compileOnly)
    return makeError("--profile measures kernels on a GPU; --compile-only "
                     "runs none",
                     "--profile");
  if (Mode == Backend::CompileOnly) {
    log("no GPU to profile on: --profile is ignored");
    return {};
  }
  if (Mode == Backend::Synthetic) {
    // Nothing runs: each shape says why it has no counters.
    ProfileWith = "ncu";
    return {};
  }
#ifdef KTUNE_HAVE_CUDA
  KTUNE_TRY_ASSIGN(ProfileWith, findNsightCompute());
  log("hardware counters: each shape's default and best configurations are "
      "measured under " +
      ProfileWith + " once tuned");
#endif
  return {};
}

Status Runner::chooseMode() {
  if (!O.syntheticTimes.empty()) {
    KTUNE_TRY_ASSIGN(Synthetic,
                     readJsonFileAs(O.syntheticTimes, syntheticModelFromJson));
    Mode = O.compileOnly ? Backend::CompileOnly : Backend::Synthetic;
    Record.notes.push_back("times are synthetic (--synthetic-times " +
                           O.syntheticTimes +
                           "): a testing aid; nothing was compiled or run");
    return {};
  }
#ifdef KTUNE_HAVE_CUDA
  if (O.compileOnly) {
    Mode = Backend::CompileOnly;
  } else if (cudaDeviceAvailable()) {
    Mode = Backend::Gpu;
  } else {
    Mode = Backend::CompileOnly;
    std::string why =
        "no usable CUDA device (or no ktune-worker beside ktune / in "
        "$KTUNE_WORKER): compiling every configuration without running "
        "anything, then stopping after round 1";
    log(why);
    Record.notes.push_back(why);
  }
  return {};
#else
  return makeError("this ktune was built without CUDA (KTUNE_ENABLE_CUDA="
                   "OFF): it cannot compile or run kernels; only "
                   "--synthetic-times works");
#endif
}

EvaluatorFactory Runner::evaluatorFactory() const {
  // Synthetic times stand in for any backend; otherwise the tuner's own
  // evaluator (the round's TuneCommand says compile-only or not).
  std::optional<SyntheticModel> synthetic = Synthetic;
  return
      [synthetic](
          const EvaluatorRequest &r) -> Expected<std::unique_ptr<Evaluator>> {
        if (synthetic)
          return std::unique_ptr<Evaluator>(
              std::make_unique<SyntheticEvaluator>(*synthetic));
#ifdef KTUNE_HAVE_CUDA
        return createEvaluator(r);
#else
        (void)r;
        return makeError("built without CUDA");
#endif
      };
}

/// The kernels the host function `launcher` (its name or qualified name)
/// launches, itself or through the launchers it calls, by qualified name.
static std::vector<std::string> launchedBy(const refactor::SourceFacts &facts,
                                           const std::string &launcher) {
  std::set<std::string> hosts;
  for (const auto &[id, f] : facts.functions)
    if (f.name == launcher || f.qualifiedName == launcher)
      hosts.insert(id);
  std::vector<std::string> out;
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto &call : facts.calls) {
      if (!hosts.count(call.caller))
        continue;
      const refactor::FunctionFacts *callee = facts.function(call.callee);
      if (!callee)
        continue;
      if (!call.isLaunch) {
        grew |= hosts.insert(call.callee).second;
      } else if (std::find(out.begin(), out.end(), callee->qualifiedName) ==
                 out.end()) {
        out.push_back(callee->qualifiedName);
      }
    }
  }
  return out;
}

Status Runner::analyseSource() {
  if (!fs::exists(O.source))
    return makeError(O.source + ": no such file");
  // Register caps and fixed arguments are what the loop proposes where
  // registers limit occupancy and where a kernel is latency-bound: its
  // candidates must hold them.
  auto analysis = refactor::analyzeFile(
      O.compile, O.parser, {/*registerCaps=*/true, /*fixedArgs=*/true});
  if (!analysis)
    return std::unexpected(fromLLVM(analysis.takeError(), O.log));
  Source = std::move(*analysis);
  Sources = Source->sources();
  for (const auto &note : Source->facts.notes)
    log("note: " + note);
  PlanKernels.clear();
  for (size_t i = 0; i < Kernels.size(); ++i) {
    const std::string &k = Kernels[i];
    std::vector<std::string> kernels = {k};
    if (Specs[i].spec.launcherMode)
      kernels = launchedBy(Source->facts, k);
    bool any = std::any_of(
        Source->candidates.candidates.begin(),
        Source->candidates.candidates.end(), [&](const Candidate &c) {
          return std::any_of(kernels.begin(), kernels.end(),
                             [&](auto &n) { return sameKernel(c.kernel, n); });
        });
    if (!any) {
      std::set<std::string> known;
      for (const auto &c : Source->candidates.candidates)
        known.insert(c.kernel);
      std::string what =
          Specs[i].spec.launcherMode
              ? (kernels.empty()
                     ? "launcher '" + k +
                           "' launches no kernel "
                           "of this file or its headers"
                     : "no tunable constant found in the kernels "
                       "launcher '" +
                           k + "' launches (" + joinNames(kernels) + ")")
              : "no tunable constant found in kernel '" + k + "'";
      return makeError(
          what + (known.empty()
                      ? std::string(" (nothing in this "
                                    "file)")
                      : " (candidates are in: " +
                            joinNames({known.begin(), known.end()}) + ")"),
          O.source);
    }
    PlanKernels.push_back(std::move(kernels));
  }
  return {};
}

std::vector<std::string> Runner::plannedKernels() const {
  std::vector<std::string> out;
  for (const auto &list : PlanKernels)
    for (const auto &k : list)
      if (std::find(out.begin(), out.end(), k) == out.end())
        out.push_back(k);
  return out;
}

Expected<planner::ChosenPlan> Runner::firstPlan() {
  planner::PlannerRequest request;
  request.file = Source->file;
  request.sources = Sources;
  request.candidates = Source->candidates;
  request.device = Device;
  planner::PlanChoice choice;
  choice.planPath = O.planPath;
  choice.planner = TextPlanner.get();
  choice.planning.auditDir = out("planner");
  choice.planning.strict = O.strictPlanner;
  choice.planning.log = [this](const std::string &line) {
    log("planner: " + line);
  };
  choice.kernels = plannedKernels();
  choice.log = [this](const std::string &line) { log(line); };
  auto chosen = planner::choosePlan(request, choice);
  if (!chosen) {
    // One error for the caller's line; the others logged before it.
    std::vector<Error> &errors = chosen.error();
    for (size_t i = 1; i < errors.size(); ++i)
      log(errors[i].str());
    return std::unexpected(errors.front());
  }
  return std::move(*chosen);
}

Expected<planner::ChosenPlan> Runner::setUp() {
  Start = std::chrono::steady_clock::now();
  if (O.outDir.empty())
    return makeError("give an output directory (--out-dir DIR)", "--out-dir");
  if (O.rounds < 1)
    return makeError("must be at least 1", "--rounds");
  if (!O.planPath.empty() && O.plannerSpec != "heuristic" &&
      !O.plannerSpec.empty())
    return makeError("give either --plan or --planner, not both", "--plan");
  if (!fs::exists(O.source))
    return makeError(O.source + ": no such file");
  KTUNE_TRY(readSpecs());

  Record.source = O.source;
  Record.commandLine = O.commandLine;
  Record.startedAt = utcTimestamp();
  Record.strategy = O.strategy;
  Record.seed = O.seed;
  Record.budget = O.budget;
  Record.roundsAsked = O.rounds;

  planner::PlannerFlags flags;
  flags.spec = O.plannerSpec.empty() ? "heuristic" : O.plannerSpec;
  flags.model = O.model;
  KTUNE_TRY_ASSIGN(auto configured, planner::configurePlanner(flags));
  if (configured.planner->isTextPlanner())
    TextPlanner = std::move(configured.planner);

  KTUNE_TRY(analyseSource());
  KTUNE_TRY(chooseBackend());
  Record.backend = backendName(Mode);
  if (auto limits = staticDeviceLimits(O.arch.empty() ? "sm_90" : O.arch))
    Device = *limits;
  Record.maxThreadsPerSM = Device.maxThreadsPerSM;

  auto plan = firstPlan();
  if (!plan)
    return std::unexpected(plan.error());
  std::error_code ec;
  fs::create_directories(O.outDir, ec);
  if (ec)
    return makeError("cannot create " + O.outDir + ": " + ec.message(),
                     "--out-dir");
  return plan;
}

} // namespace ktune::run
