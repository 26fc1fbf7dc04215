//===- RunRound.cpp - One round of `ktune run`
//-----------------------------===//
//
// A round: its plan -> the template and manifest (host code guarded for
// NVRTC) -> for each kernel, a spec for this template and a tuning session
// -> the kernel's analysis. Everything is written to round-N/.
//
//===----------------------------------------------------------------------===//
#include "Runner.h"

#include "ktune/Expr/Expr.h"
#include "ktune/Refactor/ToolSupport.h"
#include "ktune/Support/FileUtil.h"
#include "ktune/Support/Sha256.h"
#include "ktune/Support/Try.h"
#include "ktune/Tune/MultiDevice.h"

#include <sstream>

namespace ktune::run {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

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
    if (text.is_string()) // validateSpec reports what does not parse
      text = expr::substituteNames(text.get<std::string>(), with);
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

/// A spec's own launch geometry, where the round's kernel takes a row_split:
/// its blocks per row go side by side in x.
void splitSpecGrid(json &spec, const ManifestKernel &mk) {
  if (!spec.contains("launch") || !spec["launch"].is_object() ||
      !spec["launch"].contains("grid") || !spec["launch"]["grid"].is_array() ||
      spec["launch"]["grid"].empty() || !spec["launch"]["grid"][0].is_string())
    return;
  for (const auto &tp : mk.templateParams)
    if (tp.tunable && tp.kind == ParamKind::RowSplit) {
      json &x = spec["launch"]["grid"][0];
      x = "(" + x.get<std::string>() + ") * " + tp.name;
    }
}

/// The flags the source was parsed with, as the project's compile command:
/// a compilation database's are nvcc's unless they name Clang's CUDA flags;
/// flags given after -- are the project's too.
CompileCommandInfo projectCommand(const refactor::CompileCommand &c) {
  CompileCommandInfo info;
  info.directory = c.directory.empty() ? "." : c.directory;
  info.arguments = c.args;
  info.compiler = compilerForFlags(c.args);
  return info;
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

} // namespace

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

  for (size_t i = 0; i < Kernels.size(); ++i) {
    bool lifted = false;
    for (const auto &pk : plan.kernels)
      for (const auto &k : PlanKernels[i])
        if (sameKernel(pk.kernel, k) && !pk.params.empty())
          lifted = true;
    if (!lifted)
      return makeError("round " + std::to_string(round) +
                       ": the plan lifts nothing in " +
                       (Specs[i].spec.launcherMode ? "the kernels of launcher '"
                                                   : "kernel '") +
                       Kernels[i] + "'");
  }

  for (const auto &k : plan.kernels)
    for (const auto &p : k.params)
      KnownDefaults[p.name] = p.defaultValue;
  KTUNE_TRY(writeFileAtomically((fs::path(dir) / "plan.json").string(),
                                planToJson(plan).dump(2) + "\n"));

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

  double perKernel =
      timeLimit > 0 ? timeLimit / static_cast<double>(Kernels.size()) : 0;
  for (size_t i = 0; i < Kernels.size(); ++i) {
    KernelRound kr;
    auto interrupted =
        tuneKernel(i, rec, *made, templatePath, manifestPath, perKernel, kr);
    if (!interrupted)
      return std::unexpected(interrupted.error());
    rec.kernels.push_back(std::move(kr));
    if (*interrupted)
      break;
  }

  json analysisJson = json::array();
  for (const auto &k : rec.kernels)
    analysisJson.push_back(kernelAnalysisToJson(k.analysis));
  KTUNE_TRY(writeFileAtomically(
      (fs::path(dir) / "analysis.json").string(),
      json{{"ktune", "analysis/1"},
           {"round", round},
           {"roofline",
            {{"tbps", Record.roofline.tbps ? json(*Record.roofline.tbps)
                                           : json(nullptr)},
             {"source", Record.roofline.source}}},
           {"kernels", analysisJson}}
              .dump(2) +
          "\n"));
  rec.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                              roundStart)
                    .count();
  return rec;
}

Expected<bool> Runner::tuneKernel(size_t i, const RoundRecord &rec,
                                  const refactor::TemplateOutput &made,
                                  const std::string &templatePath,
                                  const std::string &manifestPath,
                                  double timeLimit, KernelRound &kr) {
  std::string dir = out(rec.dir);
  const SpecFile &spec = Specs[i];
  json specText = spec.text;
  if (const ManifestKernel *mk = made.manifest.findKernel(spec.spec.kernel)) {
    std::map<std::string, int64_t> fixedNames;
    for (const auto &[name, value] : KnownDefaults)
      if (!mk->findParam(name))
        fixedNames[name] = value;
    fixSpecNames(specText, fixedNames);
    splitSpecGrid(specText, *mk);
  }
  // The round's spec is written for the record; the session tunes with the
  // one in memory, as it tunes with the template and manifest made.
  std::string specPath = (fs::path(dir) / (Kernels[i] + ".spec.json")).string();
  std::string specFileText = specText.dump(2) + "\n";
  KTUNE_TRY(writeFileAtomically(specPath, specFileText));
  TuneInputs inputs;
  inputs.templateSource = made.text;
  inputs.manifest = made.manifest;
  KTUNE_TRY_ASSIGN(inputs.spec, withContext(specFromJson(specText), specPath));
  inputs.sha256 =
      tuneInputsSha256(made.text, manifestToJson(made.manifest), specFileText);

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
  cmd.timeLimitSeconds = timeLimit;
  cmd.cacheDir = O.cacheDir;
  cmd.jobs = O.jobs;
  cmd.arch = O.arch;
  cmd.gpus = Gpus;
  cmd.compiler = O.compiler;
  // The template lives in the round's directory: the manifest's quote_dirs
  // find the headers the original includes from its own directory; NVRTC
  // also gets ktune's standard-library names (NvrtcGuard.h). Both
  // compilers get the flags the source was parsed with (-p or --), nvcc as
  // they are.
  cmd.nvrtcIncludeDirs = {
      (fs::path(refactor::findShareDir()) / "nvrtc-compat").string()};
  if (!made.manifest.compile)
    cmd.projectCommand = projectCommand(O.compile);
  cmd.outPath = (fs::path(dir) / resultsName(Kernels[i])).string();
  cmd.journalPath = (fs::path(dir) / "journal.jsonl").string();
  cmd.headerPath = (fs::path(dir) / headerName(Kernels[i])).string();
  cmd.progress = O.progress;
  cmd.stopRequested = O.stopRequested;
  if (!ProfileWith.empty() && !cmd.compileOnly) {
    cmd.profileWith = ProfileWith;
    cmd.profileDir = dir;
  }
  log("round " + std::to_string(rec.round) + ": " +
      (cmd.compileOnly ? "compiling" : "tuning") + " " + spec.spec.kernel +
      (cmd.compileOnly ? " (every configuration)"
                       : " (strategy " + O.strategy + ", budget " +
                             (O.budget ? std::to_string(*O.budget) : "100") +
                             " per shape)"));
  KTUNE_TRY_ASSIGN(auto session,
                   runTuneSession(cmd, std::move(inputs), evaluatorFactory()));
  if (!session.gpuActivity.empty()) {
    // Each worker's share, one line each (as ktune-tune prints them).
    std::istringstream activity(
        formatGpuActivity(session.gpuActivity, session.wallSeconds));
    for (std::string line; std::getline(activity, line);)
      log("round " + std::to_string(rec.round) + ": " + line);
    kr.gpus = session.gpuActivity;
    kr.tuneSeconds = session.wallSeconds;
  }

  // Which compiler, and whether most configurations failed: in the log,
  // run.json and the report.
  std::vector<std::string> notes;
  if (const CompilerReport &c = session.results.compiler; !c.backend.empty()) {
    std::string note = spec.spec.kernel + ": compiled with " + c.backend +
                       (c.reason.empty() ? "" : " (" + c.reason + ")");
    if (!c.dropped.empty())
      note += "; left out for NVRTC: " + joinNames(c.dropped);
    notes.push_back(note);
    if (!c.command.empty())
      notes.push_back(spec.spec.kernel +
                      ": the default configuration compiles as: " + c.command);
  }
  for (const auto &n : session.results.notes)
    notes.push_back(spec.spec.kernel + ": " + n);
  for (std::string w = failureWarning(session.results); !w.empty();) {
    size_t nl = w.find('\n');
    notes.push_back(spec.spec.kernel + ": " + w.substr(0, nl));
    w = nl == std::string::npos ? "" : w.substr(nl + 1);
  }
  for (const auto &note : notes)
    if (std::find(Record.notes.begin(), Record.notes.end(), note) ==
        Record.notes.end()) {
      Record.notes.push_back(note);
      log("round " + std::to_string(rec.round) + ": " + note);
    }

  if (!cmd.profileWith.empty()) {
    size_t measured = 0;
    for (const auto &p : session.profiles) {
      if (p.error.empty())
        ++measured;
      else
        log("round " + std::to_string(rec.round) + ": " + spec.spec.kernel +
            ": no hardware counters at " + shapeLiteral(p.shape) + ": " +
            p.error);
    }
    log("round " + std::to_string(rec.round) + ": " + spec.spec.kernel +
        ": hardware counters of " + std::to_string(measured) + " of " +
        std::to_string(session.profiles.size()) +
        " shapes measured under Nsight Compute");
  }
  kr.kernel = session.results.kernel;
  kr.results = session.results;
  kr.resultsPath = rec.dir + "/" + resultsName(Kernels[i]);
  kr.journal = std::move(session.journal);

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
  // The space and the spec as the session tuned with them.
  in.space = &*session.inputs->space;
  in.spec = &session.inputs->spec;
  in.roofline = Record.roofline;
  // Occupancy and grid fill: the architecture's static limits (the device
  // the results name may differ from the architecture given).
  in.manifestKernel = session.inputs->kernel();
  auto limits = staticDeviceLimits(kr.results.arch);
  in.device = limits ? *limits : Device;
  if (!cmd.profileWith.empty())
    in.profiles = &session.profiles;
  auto analysis = analyzeKernel(in, O.analysis);
  if (!analysis)
    return std::unexpected(withContext(analysis.error(), spec.path));
  kr.analysis = std::move(*analysis);
  if (spec.spec.launcherMode)
    kr.analysis.planKernels = PlanKernels[i];
  return session.interrupted;
}

Expected<refactor::TemplateOutput>
Runner::writeTemplate(const Plan &plan, const std::string &templatePath,
                      const std::string &manifestPath,
                      const std::string &origin) {
  // Host functions are wrapped for NVRTC by the rewrite itself, so the
  // #line marks keep __LINE__ after the guards too.
  refactor::RewriteOptions options;
  options.guardHostCode = true;
  auto made = refactor::makeTemplate(*Source, plan, templatePath, manifestPath,
                                     origin, options);
  if (!made)
    return std::unexpected(fromLLVM(made.takeError(), O.log));
  KTUNE_TRY(refactor::writeTemplateFiles(*made, templatePath, manifestPath));
  return std::move(*made);
}

} // namespace ktune::run
