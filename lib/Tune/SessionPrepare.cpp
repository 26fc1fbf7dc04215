//===- SessionPrepare.cpp - What a tuning session tunes with --------------===//
//
// Reads what a session tunes (a template with its manifest and spec, or a
// recording to replay), builds the space and the shapes, and creates the
// evaluators: one, or a group over several GPUs (and other hosts' workers).
//
//===----------------------------------------------------------------------===//
#include "SessionInternal.h"

#include "ktune/Plan/CompileDatabase.h"
#include "ktune/Support/FileUtil.h"
#include "ktune/Support/Sha256.h"
#include "ktune/Support/Try.h"
#include "ktune/Tune/Simulator.h"
#include "ktune/Tune/T1.h"

#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>

namespace ktune {

namespace fs = std::filesystem;
using nlohmann::json;

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

namespace {

/// A shared evaluator slowed down, so a test can kill a run in the middle.
class DelayedEvaluator : public SharedEvaluator {
public:
  DelayedEvaluator(std::shared_ptr<Evaluator> inner, unsigned delayMs)
      : SharedEvaluator(std::move(inner)), DelayMs(delayMs) {}
  EvalResult evaluate(const Shape &shape,
                      const Configuration &config) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(DelayMs));
    return SharedEvaluator::evaluate(shape, config);
  }

private:
  unsigned DelayMs;
};

/// The manifest the command names, by default the template's name with
/// .json.
std::string manifestPathOf(const TuneCommand &cmd) {
  if (!cmd.manifestPath.empty())
    return cmd.manifestPath;
  fs::path t(cmd.templatePath);
  return (t.parent_path() / (t.stem().string() + ".json")).string();
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

} // namespace

Expected<Prepared> prepareSimulation(const TuneCommand &cmd, bool workersOnly) {
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
    if (cmd.simulateDelayMs)
      return std::make_unique<DelayedEvaluator>(shared, cmd.simulateDelayMs);
    return std::make_unique<SharedEvaluator>(shared);
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

std::string tuneInputsSha256(const std::string &templateSource,
                             const json &manifest,
                             const std::string &specText) {
  return sha256Hex(sha256Hex(templateSource) + manifest.dump() + specText);
}

Expected<TuneInputs> readTuneInputs(const TuneCommand &cmd) {
  TuneInputs in;
  KTUNE_TRY_ASSIGN(in.templateSource, readFile(cmd.templatePath));
  std::string manifestPath = manifestPathOf(cmd);
  auto mj = readJsonFile(manifestPath);
  if (!mj)
    return makeError(mj.error().message + " (the manifest; give --manifest "
                                          "if it is elsewhere)",
                     mj.error().where);
  KTUNE_TRY_ASSIGN(in.manifest,
                   withContext(manifestFromJson(*mj), manifestPath));

  if (cmd.specPath.empty())
    return makeError("a spec is needed (--spec spec.json): the shapes, "
                     "buffers and tolerances to tune with");
  KTUNE_TRY_ASSIGN(auto specText, readMaybeGzipFile(cmd.specPath));
  KTUNE_TRY_ASSIGN(auto specJson, parseJson(specText, cmd.specPath));
  KTUNE_TRY_ASSIGN(in.spec, withContext(specFromJson(specJson), cmd.specPath));
  in.sha256 = tuneInputsSha256(in.templateSource, *mj, specText);

  if (!cmd.spacePath.empty()) {
    KTUNE_TRY_ASSIGN(in.space, spaceFromT1(cmd.spacePath));
    KTUNE_TRY_ASSIGN(auto spaceText, readFile(cmd.spacePath));
    in.sha256 = sha256Hex(in.sha256 + spaceText);
  }
  return in;
}

namespace {

/// Resolves `in` against the kernel the command (or the spec) names, as
/// TuneInputs describes.
Status resolveInputs(const TuneCommand &cmd, TuneInputs &in) {
  std::string kernelName = cmd.kernel.empty() ? in.spec.kernel : cmd.kernel;
  if (in.spec.launcherMode) {
    // The launcher is the entry point: tuned as a kernel would be, found
    // first by its name.
    if (auto added = addLauncherEntry(in.manifest, in.spec.kernel); !added)
      return std::unexpected(withContext(added.error(), cmd.specPath));
  }
  const ManifestKernel *kernel = in.manifest.findKernel(kernelName);
  if (!kernel) {
    std::string known;
    for (const auto &k : in.manifest.kernels)
      known += (known.empty() ? "" : ", ") + k.name;
    return makeError("no kernel '" + kernelName +
                         "' in the manifest (it has: " + known + ")",
                     cmd.kernel.empty() ? cmd.specPath + ": kernel"
                                        : std::string("--kernel"));
  }
  in.kernelIndex = static_cast<size_t>(kernel - in.manifest.kernels.data());
  auto resolved = resolveSpec(std::move(in.spec), *kernel);
  if (!resolved)
    return std::unexpected(withContext(resolved.error(), cmd.specPath));
  in.spec = std::move(*resolved);
  if (!cmd.compileOnly)
    if (auto note = withdrawRegisterCaps(in.spec))
      in.notes.push_back(*note);
  if (!in.space) {
    auto def = spaceFromManifest(*kernel, in.spec);
    if (!def)
      return std::unexpected(withContext(def.error(), cmd.specPath));
    in.space = std::move(*def);
  }
  return {};
}

} // namespace

Expected<Prepared> prepareTemplate(const TuneCommand &cmd, TuneInputs inputs,
                                   const EvaluatorFactory &makeEvaluator,
                                   bool needEvaluator, bool workersOnly) {
  Prepared p;
  p.templatePath = cmd.templatePath;
  p.templateSha256 = sha256Hex(inputs.templateSource);
  p.host.inputsSha256 = inputs.sha256;
  KTUNE_TRY(resolveInputs(cmd, inputs));
  p.inputs = std::move(inputs);
  const TuneInputs &in = *p.inputs;
  p.notes = in.notes;
  p.kernel = in.kernel()->name;
  p.space = *in.space;
  p.shapes = in.spec.allShapes();

  if (needEvaluator) {
    EvaluatorRequest req;
    req.compileOnly = cmd.compileOnly;
    req.templatePath = cmd.templatePath;
    req.templateSource = in.templateSource;
    req.manifest = &in.manifest;
    req.kernel = p.kernel;
    req.spec = &in.spec;
    req.cacheDir = cmd.cacheDir.empty() ? defaultCacheDir() : cmd.cacheDir;
    req.jobs = cmd.jobs;
    req.arch = cmd.arch;
    req.compiler = cmd.compiler.value_or(in.spec.compiler);
    req.compilerChoiceFrom = cmd.compiler ? "--compiler"
                             : in.spec.compiler != CompilerChoice::Auto
                                 ? "the spec"
                                 : "";
    req.projectCommand = cmd.projectCommand;
    if (!req.projectCommand && !cmd.buildPath.empty()) {
      // The command that compiles the file the template was made from.
      fs::path dir = fs::path(manifestPathOf(cmd)).parent_path();
      std::string original = in.manifest.original.empty()
                                 ? cmd.templatePath
                                 : (dir / in.manifest.original).string();
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

} // namespace ktune
