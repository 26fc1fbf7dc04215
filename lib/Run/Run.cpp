//===- Run.cpp - `ktune run`: refactor, tune, analyse, re-plan ------------===//
#include "ktune/Run/Run.h"

#include "ktune/Expr/Expr.h"
#include "ktune/Planner/PlanWithValidation.h"
#include "ktune/Refactor/Refactorer.h"
#include "ktune/Run/NvrtcGuard.h"
#include "ktune/Run/Record.h"
#include "ktune/Run/Report.h"
#include "ktune/Run/SyntheticEvaluator.h"
#include "ktune/Support/DataPath.h"
#include "ktune/Support/FileUtil.h"
#include "ktune/Support/Sha256.h"

#ifdef KTUNE_HAVE_CUDA
#include "ktune/Cuda/CudaEvaluator.h"
#include "ktune/Cuda/DeviceInfo.h"
#endif

#include "llvm/Support/Error.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>

namespace ktune::run {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

enum class Backend { Gpu, CompileOnly, Synthetic };

std::string backendName(Backend b) {
  switch (b) {
  case Backend::Gpu:
    return "gpu";
  case Backend::CompileOnly:
    return "compile-only";
  case Backend::Synthetic:
    return "synthetic";
  }
  return "gpu";
}

/// An llvm::Error from the refactorer as one of ours. Clang's diagnostics
/// (several lines) go to the log; the error keeps the summary.
Error fromLLVM(llvm::Error error,
               const std::function<void(const std::string &)> &log) {
  std::string summary;
  llvm::handleAllErrors(
      std::move(error),
      [&](const refactor::ParseError &e) {
        if (log && !e.diagnostics().empty()) {
          std::string d = e.diagnostics();
          size_t start = 0;
          while (start < d.size()) {
            size_t end = d.find('\n', start);
            if (end == std::string::npos)
              end = d.size();
            log(d.substr(start, end - start));
            start = end + 1;
          }
        }
        summary = e.summary();
      },
      [&](const llvm::ErrorInfoBase &e) { summary = e.message(); });
  // Plan errors come one per line: keep the first as the message, log all.
  if (auto nl = summary.find('\n'); nl != std::string::npos) {
    if (log) {
      size_t start = 0;
      while (start < summary.size()) {
        size_t end = summary.find('\n', start);
        if (end == std::string::npos)
          end = summary.size();
        log(summary.substr(start, end - start));
        start = end + 1;
      }
    }
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

struct SpecFile {
  std::string path;
  json text; // as read
  Spec spec;
};

/// The spec for a round whose plan leaves some parameters of earlier rounds
/// fixed: their names in the launch geometry and the constraints become
/// their default values, and their domain overrides go.
void fixSpecNames(json &spec,
                  const std::map<std::string, int64_t> &fixedNames) {
  if (fixedNames.empty())
    return;
  std::map<std::string, expr::Expr> with;
  for (const auto &[name, value] : fixedNames)
    with.emplace(name, expr::Expr::integer(value));
  auto rewrite = [&](json &text) {
    if (!text.is_string())
      return;
    auto e = expr::Expr::parse(text.get<std::string>());
    if (!e)
      return; // validateSpec reports it
    auto names = e->names();
    bool uses = std::any_of(names.begin(), names.end(), [&](const auto &n) {
      return fixedNames.count(n) > 0;
    });
    if (uses)
      text = e->substitute(with).str();
  };
  if (spec.contains("launch") && spec["launch"].is_object()) {
    for (const char *key : {"grid", "block"})
      if (spec["launch"].contains(key) && spec["launch"][key].is_array())
        for (auto &dim : spec["launch"][key])
          rewrite(dim);
    if (spec["launch"].contains("smem"))
      rewrite(spec["launch"]["smem"]);
  }
  if (spec.contains("constraints") && spec["constraints"].is_array())
    for (auto &c : spec["constraints"])
      rewrite(c);
  if (spec.contains("domains") && spec["domains"].is_object())
    for (const auto &[name, value] : fixedNames)
      spec["domains"].erase(name);
}

/// A plan limited to the kernels being tuned.
Plan restrictPlan(Plan plan, const std::vector<std::string> &kernels) {
  std::vector<PlanKernel> kept;
  for (auto &k : plan.kernels)
    for (const auto &name : kernels)
      if (sameKernel(k.kernel, name)) {
        kept.push_back(std::move(k));
        break;
      }
  plan.kernels = std::move(kept);
  return plan;
}

std::string planSummary(const Plan &plan) {
  std::string s;
  for (const auto &k : plan.kernels) {
    std::vector<std::string> names;
    for (const auto &p : k.params)
      names.push_back(p.name);
    s += (s.empty() ? "" : "; ") + k.kernel + ": " +
         (names.empty() ? std::string("nothing") : joinNames(names));
  }
  return s.empty() ? "no kernel" : s;
}

class Runner {
public:
  explicit Runner(const RunOptions &o) : O(o) {}

  Expected<RunOutcome> run();

private:
  const RunOptions &O;
  RunRecord Record;
  Backend Mode = Backend::Gpu;
  std::optional<SyntheticModel> Synthetic;
  std::vector<SpecFile> Specs; // one per selected kernel, in order
  std::vector<std::string> Kernels;
  std::optional<refactor::Analysis> Source;
  SourceTexts Sources;
  planner::DeviceFacts Device;
  std::shared_ptr<planner::Planner> TextPlanner;
  std::set<std::string> Retired; // candidates dropped by a re-plan
  /// Every parameter any round's plan lifted, with its default: names a
  /// spec may use after a re-plan fixed them.
  std::map<std::string, int64_t> KnownDefaults;
  std::chrono::steady_clock::time_point Start;

  void log(const std::string &line) const {
    if (O.log)
      O.log(line);
  }
  std::string out(const std::string &relative) const {
    return (fs::path(O.outDir) / relative).string();
  }
  std::string stem() const { return fileStem(O.source); }

  Status readSpecs();
  Status chooseBackend();
  Status analyseSource();
  Expected<Plan> firstPlan(std::string &origin,
                           std::vector<std::string> &messages);
  Expected<RoundRecord> tuneRound(int round, const Plan &plan,
                                  const std::string &planSource,
                                  double timeLimit);
  EvaluatorFactory evaluatorFactory() const;
  /// The template and manifest for `plan`, host code guarded for NVRTC,
  /// written to the given paths.
  Expected<refactor::TemplateOutput>
  writeTemplate(const Plan &plan, const std::string &templatePath,
                const std::string &manifestPath, const std::string &origin);
  std::string sourceDir() const {
    return fs::absolute(fs::path(O.source))
        .parent_path()
        .lexically_normal()
        .string();
  }
  std::string headerName(const std::string &kernel) const {
    return Kernels.size() == 1 ? stem() + ".tuned.h" : kernel + ".tuned.h";
  }
  std::string resultsName(const std::string &kernel) const {
    return Kernels.size() == 1 ? "results.json" : kernel + ".results.json";
  }
  Status writeFinal(RunOutcome &outcome);
};

Status Runner::readSpecs() {
  if (O.specs.empty())
    return makeError("a spec is needed (--spec spec.json): the shapes, "
                     "buffers and tolerances to tune with",
                     "--spec");
  std::vector<SpecFile> all;
  for (const auto &path : O.specs) {
    auto j = readJsonFile(path);
    if (!j)
      return std::unexpected(j.error());
    auto spec = specFromJson(*j);
    if (!spec)
      return std::unexpected(withContext(spec.error(), path));
    all.push_back({path, *j, std::move(*spec)});
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
  if (!O.syntheticTimes.empty()) {
    auto j = readJsonFile(O.syntheticTimes);
    if (!j)
      return std::unexpected(j.error());
    auto model = syntheticModelFromJson(*j);
    if (!model)
      return std::unexpected(withContext(model.error(), O.syntheticTimes));
    Synthetic = std::move(*model);
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
  Backend mode = Mode;
  std::optional<SyntheticModel> synthetic = Synthetic;
  return
      [mode, synthetic](
          const EvaluatorRequest &r) -> Expected<std::unique_ptr<Evaluator>> {
        if (synthetic)
          return std::unique_ptr<Evaluator>(
              std::make_unique<SyntheticEvaluator>(*synthetic));
#ifdef KTUNE_HAVE_CUDA
        CudaTuneOptions o;
        o.templatePath = r.templatePath;
        o.templateSource = r.templateSource;
        o.manifest = *r.manifest;
        o.kernel = r.kernel;
        o.spec = *r.spec;
        o.cacheDir = r.cacheDir;
        o.jobs = r.jobs;
        o.arch = r.arch;
        if (mode == Backend::CompileOnly)
          return createCompileOnlyEvaluator(o);
        return createCudaEvaluator(o);
#else
        (void)mode;
        return makeError("built without CUDA");
#endif
      };
}

Status Runner::analyseSource() {
  if (!fs::exists(O.source))
    return makeError(O.source + ": no such file");
  auto analysis = refactor::analyzeFile(O.compile, O.parser);
  if (!analysis)
    return std::unexpected(fromLLVM(analysis.takeError(), O.log));
  Source = std::move(*analysis);
  Sources = {{Source->file, Source->source}};
  for (const auto &note : Source->facts.notes)
    log("note: " + note);
  for (const auto &k : Kernels) {
    bool any = std::any_of(
        Source->candidates.candidates.begin(),
        Source->candidates.candidates.end(),
        [&](const Candidate &c) { return sameKernel(c.kernel, k); });
    if (!any) {
      std::set<std::string> known;
      for (const auto &c : Source->candidates.candidates)
        known.insert(c.kernel);
      return makeError("no tunable constant found in kernel '" + k + "'" +
                           (known.empty()
                                ? std::string(" (nothing in this file)")
                                : " (candidates are in: " +
                                      joinNames({known.begin(), known.end()}) +
                                      ")"),
                       O.source);
    }
  }
  return {};
}

Expected<Plan> Runner::firstPlan(std::string &origin,
                                 std::vector<std::string> &messages) {
  if (!O.planPath.empty()) {
    auto j = readJsonFile(O.planPath);
    if (!j)
      return std::unexpected(j.error());
    auto plan = planFromJson(*j);
    if (!plan)
      return std::unexpected(withContext(plan.error(), O.planPath));
    auto errors = validatePlan(*plan, Source->candidates, Sources);
    if (!errors.empty()) {
      for (size_t i = 1; i < errors.size(); ++i)
        log(O.planPath + ": " + errors[i].str());
      return std::unexpected(withContext(errors.front(), O.planPath));
    }
    origin = "file " + O.planPath;
    return restrictPlan(std::move(*plan), Kernels);
  }
  if (!TextPlanner) {
    origin = "heuristic";
    Plan plan = restrictPlan(refactor::defaultPlan(*Source), Kernels);
    // A kernel with no confident candidate: take the less confident ones
    // rather than tune nothing.
    for (const auto &k : Kernels) {
      auto has = [&](const Plan &p) {
        for (const auto &pk : p.kernels)
          if (sameKernel(pk.kernel, k) && !pk.params.empty())
            return true;
        return false;
      };
      for (Confidence c : {Confidence::Medium, Confidence::Low}) {
        if (has(plan))
          break;
        HeuristicOptions ho;
        ho.minConfidence = c;
        ho.sources = &Sources;
        Plan wider = restrictPlan(heuristicPlan(Source->candidates, ho), {k});
        if (!has(wider))
          continue;
        std::erase_if(plan.kernels, [&](const PlanKernel &pk) {
          return sameKernel(pk.kernel, k);
        });
        plan.kernels.push_back(wider.kernels.front());
        origin = "heuristic (" + std::string(confidenceName(c)) +
                 "-confidence candidates for " + k + ")";
        log("plan: no high-confidence candidate in " + k + ": lifting " +
            std::string(confidenceName(c)) + "-confidence ones");
      }
    }
    if (auto errors = validatePlan(plan, Source->candidates, Sources);
        !errors.empty())
      return std::unexpected(errors.front());
    return plan;
  }
  planner::PlannerRequest request;
  request.file = Source->file;
  request.sources = Sources;
  request.candidates = Source->candidates;
  request.device = Device;
  planner::PlanningOptions planning;
  planning.auditDir = out("planner");
  planning.strict = O.strictPlanner;
  planning.log = [&](const std::string &line) {
    log("planner: " + line);
    messages.push_back(line);
  };
  auto result = planner::planWithValidation(*TextPlanner, request, planning);
  if (!result)
    return std::unexpected(result.error());
  origin = TextPlanner->describe() + " (" +
           std::string(planner::outcomeName(result->outcome)) + ")";
  return restrictPlan(std::move(result->plan), Kernels);
}

Expected<RoundRecord> Runner::tuneRound(int round, const Plan &plan,
                                        const std::string &planSource,
                                        double timeLimit) {
  auto roundStart = std::chrono::steady_clock::now();
  RoundRecord rec;
  rec.round = round;
  rec.plan = plan;
  rec.planSource = planSource;
  rec.dir = "round-" + std::to_string(round);
  std::string dir = out(rec.dir);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    return makeError("cannot create " + dir + ": " + ec.message());

  for (const auto &k : Kernels) {
    bool lifted = false;
    for (const auto &pk : plan.kernels)
      if (sameKernel(pk.kernel, k) && !pk.params.empty())
        lifted = true;
    if (!lifted)
      return makeError("round " + std::to_string(round) +
                       ": the plan lifts nothing in kernel '" + k + "'");
  }

  for (const auto &k : plan.kernels)
    for (const auto &p : k.params)
      KnownDefaults[p.name] = p.defaultValue;
  if (auto s = writeFileAtomically((fs::path(dir) / "plan.json").string(),
                                   planToJson(plan).dump(2) + "\n");
      !s)
    return std::unexpected(s.error());

  rec.templateFile = stem() + ".tpl.cu";
  rec.manifestFile = stem() + ".tpl.json";
  std::string templatePath = (fs::path(dir) / rec.templateFile).string();
  std::string manifestPath = (fs::path(dir) / rec.manifestFile).string();
  auto made =
      writeTemplate(plan, templatePath, manifestPath, rec.dir + "/plan.json");
  if (!made)
    return std::unexpected(made.error());
  rec.refactorNotes = made->notes;
  log("round " + std::to_string(round) + ": " + planSummary(plan) + " -> " +
      templatePath);

  // The template lives in the round's directory: headers included from the
  // original file's directory must still be found; NVRTC gets ktune's
  // standard-library names (NvrtcGuard.h).
  std::string includeSource = "--include-path=" + sourceDir();
  std::string includeCompat =
      "--include-path=" +
      (fs::path(refactor::findShareDir()) / "nvrtc-compat").string();
  double perKernel =
      timeLimit > 0 ? timeLimit / static_cast<double>(Kernels.size()) : 0;
  for (size_t i = 0; i < Kernels.size(); ++i) {
    const SpecFile &spec = Specs[i];
    json specText = spec.text;
    if (const ManifestKernel *mk =
            made->manifest.findKernel(spec.spec.kernel)) {
      std::map<std::string, int64_t> fixedNames;
      for (const auto &[name, value] : KnownDefaults)
        if (!mk->findParam(name))
          fixedNames[name] = value;
      fixSpecNames(specText, fixedNames);
    }
    if (!specText.contains("compile_options"))
      specText["compile_options"] = json::array();
    specText["compile_options"].push_back(includeSource);
    specText["compile_options"].push_back(includeCompat);
    std::string specPath =
        (fs::path(dir) / (Kernels[i] + ".spec.json")).string();
    if (auto s = writeFileAtomically(specPath, specText.dump(2) + "\n"); !s)
      return std::unexpected(s.error());

    TuneCommand cmd;
    cmd.templatePath = templatePath;
    cmd.manifestPath = manifestPath;
    cmd.specPath = specPath;
    cmd.kernel = spec.spec.kernel;
    cmd.strategy = O.strategy;
    cmd.seed = O.seed;
    cmd.compileOnly = Mode == Backend::CompileOnly;
    // --budget counts timed evaluations; a compile-only round checks the
    // whole space (only a time limit cuts it short).
    if (!cmd.compileOnly)
      cmd.budget = O.budget;
    cmd.timeLimitSeconds = perKernel;
    cmd.cacheDir = O.cacheDir;
    cmd.jobs = O.jobs;
    cmd.arch = O.arch;
    cmd.outPath = (fs::path(dir) / resultsName(Kernels[i])).string();
    cmd.journalPath = (fs::path(dir) / "journal.jsonl").string();
    cmd.headerPath = (fs::path(dir) / headerName(Kernels[i])).string();
    cmd.progress = O.progress;
    cmd.stopRequested = O.stopRequested;
    log("round " + std::to_string(round) + ": " +
        (cmd.compileOnly ? "compiling" : "tuning") + " " + spec.spec.kernel +
        (cmd.compileOnly ? " (every configuration)"
                         : " (strategy " + O.strategy + ", budget " +
                               (O.budget ? std::to_string(*O.budget) : "100") +
                               " per shape)"));
    auto session = runTuneSession(cmd, evaluatorFactory());
    if (!session)
      return std::unexpected(session.error());

    KernelRound kr;
    kr.kernel = session->results.kernel;
    kr.results = session->results;
    kr.resultsPath = rec.dir + "/" + resultsName(Kernels[i]);
    {
      auto journal = Journal::open(cmd.journalPath);
      if (!journal)
        return std::unexpected(journal.error());
      for (const auto &e : (*journal)->entries())
        if (e.key.templateSha256 == kr.results.templateSha256 &&
            e.key.kernel == kr.results.kernel &&
            e.key.device == kr.results.device && e.key.arch == kr.results.arch)
          kr.journal.push_back(e);
    }
    const ManifestKernel *mk = made->manifest.findKernel(cmd.kernel);
    if (!mk)
      return makeError("the template has no kernel '" + cmd.kernel + "'",
                       manifestPath);
    auto roundSpec = specFromJson(specText);
    if (!roundSpec)
      return std::unexpected(withContext(roundSpec.error(), specPath));
    auto resolved = resolveSpec(std::move(*roundSpec), *mk);
    if (!resolved)
      return std::unexpected(withContext(resolved.error(), specPath));
    auto space = spaceFromManifest(*mk, *resolved);
    if (!space)
      return std::unexpected(withContext(space.error(), specPath));

    if (Record.device.empty()) {
      Record.device = kr.results.device;
      Record.arch = kr.results.arch;
      if (O.rooflineTBps) {
        Record.roofline = {O.rooflineTBps, "--roofline-tbps"};
      } else if (Synthetic && Synthetic->rooflineTBps) {
        Record.roofline = {Synthetic->rooflineTBps,
                           "the synthetic model's roofline_tbps"};
      } else if (auto known = knownCopyBandwidthTBps(Record.device)) {
        Record.roofline = {known, "ktune's table: " + fixed(*known, 2) +
                                      " TB/s, a device-to-device copy "
                                      "measured on this GPU model"};
      } else {
        Record.roofline = {std::nullopt, "unknown for " + Record.device};
      }
    }
    KernelRoundInput in;
    in.results = &kr.results;
    in.journal = &kr.journal;
    in.space = &*space;
    in.spec = &*resolved;
    in.roofline = Record.roofline;
    auto analysis = analyzeKernel(in, O.analysis);
    if (!analysis)
      return std::unexpected(withContext(analysis.error(), spec.path));
    kr.analysis = std::move(*analysis);
    rec.kernels.push_back(std::move(kr));
    if (session->interrupted)
      break;
  }

  json analysisJson = json::array();
  for (const auto &k : rec.kernels)
    analysisJson.push_back(kernelAnalysisToJson(k.analysis));
  if (auto s = writeFileAtomically(
          (fs::path(dir) / "analysis.json").string(),
          json{{"ktune", "analysis/1"},
               {"round", round},
               {"roofline",
                {{"tbps", Record.roofline.tbps ? json(*Record.roofline.tbps)
                                               : json(nullptr)},
                 {"source", Record.roofline.source}}},
               {"kernels", analysisJson}}
                  .dump(2) +
              "\n");
      !s)
    return std::unexpected(s.error());
  rec.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                              roundStart)
                    .count();
  return rec;
}

Expected<refactor::TemplateOutput>
Runner::writeTemplate(const Plan &plan, const std::string &templatePath,
                      const std::string &manifestPath,
                      const std::string &origin) {
  auto made =
      refactor::makeTemplate(*Source, plan, templatePath, manifestPath, origin);
  if (!made)
    return std::unexpected(fromLLVM(made.takeError(), O.log));
  if (auto s = writeFileAtomically(templatePath, made->text); !s)
    return std::unexpected(s.error());
  // Find the template's host functions (a parse of the file just written,
  // with the original's flags and directory) and guard them for NVRTC.
  refactor::CompileCommand command = O.compile;
  command.file = templatePath;
  command.args.push_back("-I" + sourceDir());
  refactor::ParserOptions parser = O.parser;
  parser.cacheDir.clear();
  auto ranges = hostOnlyRanges(command, parser);
  if (!ranges)
    return std::unexpected(fromLLVM(ranges.takeError(), O.log));
  made->text = guardHostCode(made->text, *ranges);
  made->manifest.sourceSha256 = sha256Hex(made->text);
  if (auto s = writeFileAtomically(templatePath, made->text); !s)
    return std::unexpected(s.error());
  if (auto s = writeFileAtomically(
          manifestPath, manifestToJson(made->manifest).dump(2) + "\n");
      !s)
    return std::unexpected(s.error());
  return std::move(*made);
}

std::string analysisLine(const KernelAnalysis &a) {
  std::string s = a.kernel + ": geomean speedup " + fixed(a.geomeanSpeedup, 3) +
                  "x over the default";
  if (a.rooflinePct)
    s += ", " + fixed(*a.rooflinePct, 1) + "% of the roofline at best";
  s += ", noise " + fixed(100.0 * a.noise, 2) + "%";
  for (const auto &e : a.edges)
    if (e.mattered)
      s += "; " + e.param + " at its " + e.edge + " edge (" +
           std::to_string(e.value) + ") in " + std::to_string(e.shapes) +
           " shape(s)";
  for (const auto &i : a.influence)
    if (i.insensitive)
      s += "; " + i.param + " within the noise";
  return s;
}

Status Runner::writeFinal(RunOutcome &outcome) {
  const RoundRecord &best = Record.rounds[Record.bestRound - 1];
  // The best round's template again, named for the top of the directory
  // (the manifest names its files relative to itself).
  std::string templatePath = out(stem() + ".tpl.cu");
  std::string manifestPath = out(stem() + ".tpl.json");
  auto made = writeTemplate(best.plan, templatePath, manifestPath,
                            best.dir + "/plan.json");
  if (!made)
    return std::unexpected(made.error());
  if (auto s = writeFileAtomically(out("plan.json"),
                                   planToJson(best.plan).dump(2) + "\n");
      !s)
    return s;
  for (size_t i = 0; i < best.kernels.size(); ++i) {
    TuneResults results = best.kernels[i].results;
    results.templatePath = templatePath;
    std::string resultsPath = out(resultsName(Kernels[i]));
    if (auto s = writeFileAtomically(resultsPath,
                                     resultsToJson(results).dump(2) + "\n");
        !s)
      return s;
    outcome.table += formatResultsTable(results);
    if (results.compileOnly)
      continue;
    TuneCommand cmd;
    cmd.templatePath = templatePath;
    cmd.manifestPath = manifestPath;
    cmd.specPath = out(best.dir + "/" + Kernels[i] + ".spec.json");
    cmd.kernel = Specs[i].spec.kernel;
    cmd.fromResults = resultsPath;
    cmd.headerPath = out(headerName(Kernels[i]));
    auto header = runTuneSession(cmd, evaluatorFactory());
    if (!header)
      return std::unexpected(header.error());
    outcome.headerPath = cmd.headerPath;
  }

  outcome.runJsonPath = out("run.json");
  if (auto s = writeFileAtomically(outcome.runJsonPath,
                                   runRecordToJson(Record).dump(2) + "\n");
      !s)
    return s;
  auto frame = findDataFile("templates/report.html.in");
  if (!frame)
    return std::unexpected(frame.error());
  auto text = readFile(*frame);
  if (!text)
    return std::unexpected(text.error());
  auto html = renderReport(Record, *text, *frame);
  if (!html)
    return std::unexpected(html.error());
  outcome.reportPath = out("report.html");
  return writeFileAtomically(outcome.reportPath, *html);
}

Expected<RunOutcome> Runner::run() {
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
  if (auto s = readSpecs(); !s)
    return std::unexpected(s.error());

  Record.source = O.source;
  Record.commandLine = O.commandLine;
  Record.startedAt = utcTimestamp();
  Record.strategy = O.strategy;
  Record.seed = O.seed;
  Record.budget = O.budget;
  Record.roundsAsked = O.rounds;

  auto plannerOptions = planner::plannerOptionsFromEnvironment();
  if (!plannerOptions)
    return std::unexpected(plannerOptions.error());
  if (!O.model.empty())
    plannerOptions->model = O.model;
  std::string plannerSpec = O.plannerSpec.empty() ? "heuristic" : O.plannerSpec;
  auto parsedPlanner = planner::parsePlannerSpec(plannerSpec, *plannerOptions);
  if (!parsedPlanner)
    return makeError(parsedPlanner.error().message, "--planner");
  if ((*parsedPlanner)->isTextPlanner())
    TextPlanner = std::shared_ptr<planner::Planner>(std::move(*parsedPlanner));

  if (auto s = analyseSource(); !s)
    return std::unexpected(s.error());
  if (auto s = chooseBackend(); !s)
    return std::unexpected(s.error());
  Record.backend = backendName(Mode);
#ifdef KTUNE_HAVE_CUDA
  if (auto limits = staticDeviceLimits(O.arch.empty() ? "sm_90" : O.arch)) {
    auto facts = planner::DeviceFacts::fromJson(deviceLimitsToJson(*limits));
    if (facts)
      Device = *facts;
  }
#endif
  Record.maxThreadsPerSM = Device.maxThreadsPerSM;

  std::string origin;
  std::vector<std::string> messages;
  auto plan = firstPlan(origin, messages);
  if (!plan)
    return std::unexpected(plan.error());
  std::error_code ec;
  fs::create_directories(O.outDir, ec);
  if (ec)
    return makeError("cannot create " + O.outDir + ": " + ec.message(),
                     "--out-dir");

  std::unique_ptr<Replanner> replanner;
  if (TextPlanner) {
    planner::PlanningOptions planning;
    planning.auditDir = out("planner");
    planning.strict = false;
    planning.log = [this](const std::string &line) { log("planner: " + line); };
    replanner = makePlannerReplanner(TextPlanner, planning);
  } else {
    replanner = makeRuleReplanner();
  }

  RunOutcome outcome;
  Plan current = std::move(*plan);
  std::string source = origin;
  std::vector<std::string> roundMessages = std::move(messages);
  for (int round = 1; round <= O.rounds; ++round) {
    double limit = 0;
    if (O.timeLimitSeconds > 0) {
      double used = std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - Start)
                        .count();
      double left = O.timeLimitSeconds - used;
      if (left <= 0) {
        Record.stopReason =
            "the time limit was reached before round " + std::to_string(round);
        break;
      }
      // Half of what is left while later rounds may follow, all of it in
      // the last: most runs stop after a round whose re-plan changes
      // nothing, and an even split would leave that time unused.
      limit = round < O.rounds ? left / 2 : left;
    }
    auto rec = tuneRound(round, current, source, limit);
    if (!rec)
      return std::unexpected(rec.error());
    rec->planningMessages = std::move(roundMessages);
    Record.rounds.push_back(std::move(*rec));
    RoundRecord &done = Record.rounds.back();
    outcome.rounds = round;
    for (const auto &k : done.kernels)
      if (!k.analysis.compileOnly)
        log("round " + std::to_string(round) + ": " + analysisLine(k.analysis));

    if (O.stopRequested && O.stopRequested->load()) {
      outcome.interrupted = true;
      Record.stopReason = "interrupted during round " + std::to_string(round);
      break;
    }
    if (Mode == Backend::CompileOnly) {
      outcome.compileOnly = true;
      uint64_t configs = 0, ok = 0, cut = 0;
      std::string cutReason;
      for (const auto &k : done.kernels)
        for (const auto &s : k.results.shapes) {
          configs += s.evaluations;
          auto it = s.statusCounts.find(EvalStatus::Ok);
          ok += it == s.statusCounts.end() ? 0 : it->second;
          // A time limit (or Ctrl-C) leaves shapes partly compiled.
          if (s.stopReason != "compile only") {
            ++cut;
            cutReason = s.stopReason;
          }
        }
      Record.stopReason =
          "compile-only: " + std::to_string(configs) +
          " configuration-shape pairs compiled and checked (" +
          std::to_string(ok) + " within the hardware limits)" +
          (cut ? "; " + std::to_string(cut) +
                     " shape(s) not checked in full (" + cutReason + ")"
               : std::string()) +
          "; timing, analysis and re-planning need a GPU, so the run stops "
          "after round 1";
      break;
    }
    if (round >= 2) {
      std::vector<KernelAnalysis> prev, cur;
      for (const auto &k : Record.rounds[round - 2].kernels)
        prev.push_back(k.analysis);
      for (const auto &k : done.kernels)
        cur.push_back(k.analysis);
      StopDecision stop = gainStop(round, prev, cur);
      done.stop = stop;
      log("round " + std::to_string(round) + ": " + stop.reason);
      if (stop.stop) {
        Record.stopReason = stop.reason;
        break;
      }
    }
    if (round == O.rounds) {
      Record.stopReason = "the " + std::to_string(O.rounds) + " round" +
                          (O.rounds == 1 ? "" : "s") + " asked for (--rounds)";
      break;
    }

    // Re-plan from this round's findings.
    std::vector<KernelAnalysis> analyses;
    for (const auto &k : done.kernels)
      analyses.push_back(k.analysis);
    ReplanContext ctx;
    ctx.round = round;
    ctx.plan = &done.plan;
    ctx.analyses = &analyses;
    ctx.candidates = &Source->candidates;
    ctx.sources = &Sources;
    ctx.file = Source->file;
    ctx.device = Device;
    ctx.retiredCandidates = Retired;
    ctx.kernels = Kernels;
    ctx.deviceName = Record.device;
    ctx.arch = Record.arch;
    for (const auto &s : Specs)
      for (const auto &[name, d] : s.spec.domains)
        ctx.specDomains.insert(name);
    auto decision = replanner->replan(ctx);
    if (!decision)
      return std::unexpected(decision.error());
    decision->plan = restrictPlan(std::move(decision->plan), Kernels);
    for (const auto &r : decision->reasons)
      log("round " + std::to_string(round) + ": re-plan (" +
          (TextPlanner ? "planner" : "rules") +
          "): " + std::string(replanActionName(r.action)) +
          (r.param.empty() ? "" : " " + r.param) + ": " + r.message);
    // Candidates no longer lifted are not lifted again by the rules.
    std::set<std::string> before, after;
    for (const auto &k : done.plan.kernels)
      for (const auto &p : k.params)
        before.insert(p.candidates.begin(), p.candidates.end());
    for (const auto &k : decision->plan.kernels)
      for (const auto &p : k.params)
        after.insert(p.candidates.begin(), p.candidates.end());
    for (const auto &id : before)
      if (!after.count(id))
        Retired.insert(id);
    if (auto s =
            writeFileAtomically(out(done.dir + "/replan.json"),
                                replanDecisionToJson(*decision).dump(2) + "\n");
        !s)
      return std::unexpected(s.error());
    done.replan = *decision;
    if (!decision->changed) {
      Record.stopReason =
          "round " + std::to_string(round) + ": the re-plan changes nothing";
      break;
    }
    current = decision->plan;
    source = decision->replanner + " after round " + std::to_string(round) +
             (decision->outcome.empty() ? "" : " (" + decision->outcome + ")");
  }
  if (Record.rounds.empty())
    return makeError(Record.stopReason);

  // The best round: the lowest geometric mean of the best times.
  Record.bestRound = static_cast<int>(Record.rounds.size());
  if (!outcome.compileOnly) {
    double bestScore = 0;
    bool have = false;
    for (const auto &r : Record.rounds) {
      double sum = 0;
      size_t n = 0;
      for (const auto &k : r.kernels)
        for (const auto &s : k.analysis.shapes)
          if (s.bestUs && *s.bestUs > 0) {
            sum += std::log(*s.bestUs);
            ++n;
          }
      if (n == 0 || r.kernels.size() != Kernels.size())
        continue;
      double score = sum / static_cast<double>(n);
      if (!have || score < bestScore) {
        bestScore = score;
        Record.bestRound = r.round;
        have = true;
      }
    }
    Record.bestRoundReason =
        "round " + std::to_string(Record.bestRound) +
        " has the lowest geometric mean of the per-shape best times";
  } else {
    Record.bestRoundReason = "compile-only: round 1 is the only round";
  }
  outcome.bestRound = Record.bestRound;
  outcome.stopReason = Record.stopReason;
  if (auto s = writeFinal(outcome); !s)
    return std::unexpected(s.error());
  return outcome;
}

} // namespace

Expected<RunOutcome> runKtune(const RunOptions &options) {
  Runner runner(options);
  return runner.run();
}

} // namespace ktune::run
