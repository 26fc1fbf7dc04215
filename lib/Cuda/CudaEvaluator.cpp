//===- CudaEvaluator.cpp - Compile, prune, run, verify, time --------------===//
//
// evaluate(shape, config):
//   constraints -> launch geometry -> prune by geometry -> compile (cache)
//   -> prune by registers / shared memory / occupancy -> [compile-only: done]
//   -> the worker holds this shape's buffers and reference outputs
//   -> load -> run with poisoned outputs -> compare -> time.
// A worker that hangs, crashes or loses its context costs one configuration:
// it is recorded as timeout / runtime_error and a new worker re-creates the
// shape's inputs (same seed) and reference before the next evaluation.
//
//===----------------------------------------------------------------------===//
#include "ktune/Cuda/CudaEvaluator.h"

#include "ktune/Cuda/HelperKernels.h"
#include "ktune/Cuda/KernelBinding.h"
#include "ktune/Cuda/NvrtcCompiler.h"
#include "ktune/Cuda/Pruning.h"
#include "ktune/Cuda/TimingStats.h"
#include "ktune/Cuda/WorkerClient.h"
#include "ktune/Support/DType.h"
#include "ktune/Support/FileUtil.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <set>

namespace ktune {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr uint64_t InputSeed = 0x6b74756e65ull;
/// Kernels loaded in one worker before it unloads all modules.
constexpr size_t MaxLoadedKernels = 512;
/// Interleaved retiming: rounds x launches (or batches) per round.
constexpr int RetimeRounds = 10;
constexpr int RetimeRepsPerRound = 10;

std::string number(double v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

std::string shapeText(const Shape &shape) {
  std::string s = "{";
  for (const auto &[k, v] : shape)
    s += (s.size() > 1 ? ", " : "") + k + "=" + std::to_string(v);
  return s + "}";
}

std::string describeMismatch(const protocol::BufferCheck &c, int64_t count) {
  std::string s = "'" + c.name + "': " + std::to_string(c.mismatches) + " of " +
                  std::to_string(count) +
                  " elements differ from the reference (first at index " +
                  std::to_string(c.firstIndex) + ": got " + number(c.got) +
                  ", want " + number(c.want);
  if (std::isfinite(c.maxAbsErr) && c.maxAbsErr > 0)
    s += "; max |err| " + number(c.maxAbsErr);
  if (c.nonFinite > 0)
    s += "; " + std::to_string(c.nonFinite) +
         " NaN/Inf where the reference is finite (unwritten or overflowed)";
  return s + ")";
}

std::string describeGuards(const protocol::BufferCheck &c) {
  std::string s = "'" + c.name + "': out-of-bounds write (";
  if (c.guardBefore > 0)
    s +=
        std::to_string(c.guardBefore) + " bytes changed just before the buffer";
  if (c.guardBefore > 0 && c.guardAfter > 0)
    s += ", ";
  if (c.guardAfter > 0)
    s += std::to_string(c.guardAfter) + " bytes changed just past its end";
  return s + ")";
}

class CudaEvaluator final : public Evaluator {
public:
  CudaEvaluator(CudaTuneOptions options, KernelBinding binding,
                std::unique_ptr<NvrtcCompiler> compiler,
                std::unique_ptr<NvrtcCompiler> helperCompiler,
                DeviceLimits limits, std::unique_ptr<WorkerClient> worker,
                json helpers, WorkerClient::Settings workerSettings,
                bool compileOnly)
      : Options(std::move(options)), Binding(std::move(binding)),
        Compiler(std::move(compiler)),
        HelperCompiler(std::move(helperCompiler)), Limits(std::move(limits)),
        Worker(std::move(worker)), Helpers(std::move(helpers)),
        WorkerSettings(std::move(workerSettings)), CompileOnly(compileOnly) {}

  std::string device() const override { return Limits.name; }
  std::string arch() const override { return Compiler->arch(); }

  void prepare(const std::vector<Configuration> &upcoming) override {
    std::vector<Instantiation> insts;
    for (const auto &c : upcoming) {
      auto full = Binding.complete(c);
      if (!full)
        continue;
      auto name = Binding.nameExpression(*full);
      if (!name)
        continue;
      insts.push_back({*name, KernelBinding::maxRegisters(*full)});
    }
    Compiler->prefetch(insts);
  }

  EvalResult evaluate(const Shape &shape,
                      const Configuration &config) override {
    EvalResult r;
    auto prepared = compileAndPrune(shape, config, r);
    if (!prepared || CompileOnly)
      return r;
    if (auto failed = ensureShape(shape, config))
      return merge(*failed, r);
    if (auto failed = loadAndVerify(*prepared, r))
      return *failed;
    auto t = Worker->time(prepared->Handle, prepared->Launch, timeOptions(0));
    if (!t)
      return workerFailure(t.error(), "timing: ", r);
    r.time = toTiming(t->samplesUs, t->batched);
    return r;
  }

  std::vector<EvalResult>
  retime(const Shape &shape,
         const std::vector<Configuration> &configs) override {
    std::vector<EvalResult> out(configs.size());
    std::vector<std::optional<Prepared>> runs(configs.size());
    for (size_t i = 0; i < configs.size(); ++i) {
      auto prepared = compileAndPrune(shape, configs[i], out[i]);
      if (!prepared || CompileOnly)
        continue;
      if (auto failed = ensureShape(shape, configs[i])) {
        out[i] = merge(*failed, out[i]);
        continue;
      }
      if (auto failed = loadAndVerify(*prepared, out[i])) {
        out[i] = *failed;
        continue;
      }
      runs[i] = std::move(*prepared);
    }
    // Rounds of A B C A B C ...: drifts in clocks or temperature hit every
    // configuration alike instead of favouring the one timed first.
    std::vector<std::vector<double>> samples(configs.size());
    std::vector<double> seconds(configs.size(), 0.0);
    std::vector<bool> batched(configs.size(), false);
    for (int round = 0; round < RetimeRounds; ++round) {
      bool any = false;
      for (size_t i = 0; i < configs.size(); ++i) {
        if (!runs[i] || seconds[i] >= Options.maxTimingSecondsPerConfig)
          continue;
        any = true;
        if (auto failed = ensureShape(shape, configs[i])) {
          out[i] = merge(*failed, out[i]);
          runs[i].reset();
          continue;
        }
        auto loaded = loadKernel(runs[i]->Kernel);
        if (!loaded) {
          out[i] =
              workerFailure(loaded.error(), "loading the module: ", out[i]);
          runs[i].reset();
          continue;
        }
        runs[i]->Handle = loaded->handle;
        auto t = Worker->time(runs[i]->Handle, runs[i]->Launch,
                              timeOptions(RetimeRepsPerRound));
        if (!t) {
          out[i] = workerFailure(t.error(), "timing: ", out[i]);
          runs[i].reset();
          continue;
        }
        samples[i].insert(samples[i].end(), t->samplesUs.begin(),
                          t->samplesUs.end());
        seconds[i] += t->wallSeconds;
        batched[i] = t->batched;
      }
      if (!any)
        break;
    }
    for (size_t i = 0; i < configs.size(); ++i)
      if (runs[i] && out[i].status == EvalStatus::Ok)
        out[i].time = toTiming(samples[i], batched[i]);
    return out;
  }

private:
  struct Prepared {
    Configuration Config;
    CompiledKernel Kernel;
    LaunchDims Dims;
    protocol::Launch Launch;
    int Handle = -1;
  };

  protocol::TimeOptions timeOptions(int fixedReps) const {
    protocol::TimeOptions o;
    o.coldL2 = Options.coldL2;
    o.rule.maxSeconds = Options.maxTimingSecondsPerConfig;
    o.rule.targetRelIqr = Options.targetRelativeIqr;
    o.fixedReps = fixedReps;
    return o;
  }

  Timing toTiming(const std::vector<double> &samples, bool graphBatched) const {
    SampleSummary s = summarize(samples);
    Timing t;
    t.medianUs = s.median;
    t.iqrUs = s.iqr();
    t.reps = static_cast<int>(s.count);
    t.graphBatched = graphBatched;
    t.coldL2 = Options.coldL2;
    return t;
  }

  static EvalResult merge(EvalResult failure, const EvalResult &soFar) {
    failure.resources = soFar.resources;
    failure.compileMs = soFar.compileMs;
    return failure;
  }

  EvalResult workerFailure(const WorkerFailure &f, const std::string &context,
                           EvalResult base) {
    base.status = f.timeout ? EvalStatus::Timeout : EvalStatus::RuntimeError;
    base.reason = context + f.message;
    base.time.reset();
    if (f.workerLost) {
      CurrentShape.reset();
      Handles.clear();
    }
    return base;
  }

  /// Everything that needs no device. Fills `r`; returns the launch when the
  /// configuration may run.
  std::optional<Prepared> compileAndPrune(const Shape &shape,
                                          const Configuration &config,
                                          EvalResult &r) {
    auto fail = [&r](EvalStatus status, std::string reason) {
      r.status = status;
      r.reason = std::move(reason);
      return std::nullopt;
    };
    auto full = Binding.complete(config);
    if (!full)
      return fail(EvalStatus::CompileError,
                  "invalid configuration: " + full.error().str());
    if (auto violated = Binding.violatedConstraint(shape, *full))
      return fail(EvalStatus::Pruned, "constraint violated: " + *violated);
    auto dims = Binding.launch(shape, *full);
    if (!dims)
      return fail(EvalStatus::Pruned,
                  "launch geometry cannot be evaluated: " + dims.error().str());
    r.resources.threadsPerBlock = static_cast<int>(dims->threadsPerBlock());
    r.resources.smemDynamic = static_cast<int>(dims->smemDynamic);
    if (auto why = geometryPruneReason(Limits, *dims))
      return fail(EvalStatus::Pruned, *why);

    auto name = Binding.nameExpression(*full);
    if (!name)
      return fail(EvalStatus::CompileError, name.error().str());
    auto compiled = Compiler->get({*name, KernelBinding::maxRegisters(*full)});
    if (!compiled)
      return fail(EvalStatus::CompileError, compiled.error().str());
    r.compileMs = compiled->compileMs;
    const PtxasFunctionInfo &res = compiled->resources;
    r.resources.registers = res.registers;
    r.resources.spillStores = res.spillStores;
    r.resources.spillLoads = res.spillLoads;
    r.resources.stackFrame = res.cumulativeStack;
    r.resources.smemStatic = res.registers >= 0 ? res.smemStatic : -1;
    if (int cap = KernelBinding::maxRegisters(*full);
        cap > 0 && res.registers > cap)
      return fail(EvalStatus::Pruned,
                  "--maxrregcount=" + std::to_string(cap) +
                      " has no effect: the kernel uses " +
                      std::to_string(res.registers) +
                      " registers (its __launch_bounds__ take precedence), "
                      "so this is the same code as without the cap");
    if (auto why = resourcePruneReason(Limits, *dims, res.registers,
                                       r.resources.smemStatic, res.barriers))
      return fail(EvalStatus::Pruned, *why);
    if (res.registers >= 0)
      r.resources.blocksPerSM =
          computeOccupancy(Limits,
                           {dims->threadsPerBlock(), res.registers,
                            res.smemStatic, dims->smemDynamic, res.barriers})
              .blocksPerSM;
    auto args = Binding.args(shape, *full);
    if (!args)
      return fail(EvalStatus::RuntimeError,
                  "kernel arguments: " + args.error().str());
    Prepared p;
    p.Config = *full;
    p.Kernel = std::move(*compiled);
    p.Dims = *dims;
    p.Launch.dims = *dims;
    p.Launch.args = std::move(*args);
    return p;
  }

  WorkerResult<LoadedKernel> loadKernel(const CompiledKernel &k) {
    std::string key = k.imagePath + "\n" + k.loweredName;
    if (auto it = Handles.find(key); it != Handles.end())
      return it->second;
    if (Handles.size() >= MaxLoadedKernels) {
      if (auto s = Worker->unloadAll(); !s)
        return std::unexpected(s.error());
      Handles.clear();
    }
    auto loaded = Worker->load(k.imagePath, k.loweredName);
    if (loaded)
      Handles[key] = *loaded;
    return loaded;
  }

  /// Loads, runs once with poisoned outputs and compares with the reference.
  std::optional<EvalResult> loadAndVerify(Prepared &p, EvalResult &r) {
    auto loaded = loadKernel(p.Kernel);
    if (!loaded)
      return workerFailure(loaded.error(), "loading the module: ", r);
    p.Handle = loaded->handle;
    // The loaded function's attributes are the ground truth (and the only
    // resource report for PTX, which the driver compiles).
    if (loaded->registers > 0) {
      bool unknownBefore = r.resources.registers < 0;
      r.resources.registers = loaded->registers;
      r.resources.smemStatic = loaded->smemStatic;
      if (unknownBefore)
        if (auto why = resourcePruneReason(Limits, p.Dims, loaded->registers,
                                           loaded->smemStatic)) {
          r.status = EvalStatus::Pruned;
          r.reason = *why;
          return r;
        }
    }
    if (loaded->maxThreadsPerBlock > 0 &&
        p.Dims.threadsPerBlock() > loaded->maxThreadsPerBlock) {
      r.status = EvalStatus::Pruned;
      r.reason = "the kernel allows at most " +
                 std::to_string(loaded->maxThreadsPerBlock) +
                 " threads per block (launch bounds or registers); the launch "
                 "has " +
                 std::to_string(p.Dims.threadsPerBlock());
      return r;
    }
    // 0xFF bytes are NaN in every float type; integers get a second run with
    // another pattern, since -1 may be a legitimate output.
    std::vector<int> poisons = {0xFF};
    if (HasIntegerOutput)
      poisons.push_back(0x5A);
    for (int poison : poisons) {
      auto run = Worker->run(p.Handle, p.Launch, poison, false);
      if (!run)
        return workerFailure(run.error(), "", r);
      r.resources.blocksPerSM = run->blocksPerSM;
      std::string wrong;
      for (const auto &c : run->result.checks) {
        if (c.mismatches > 0)
          wrong += (wrong.empty() ? "" : "; ") +
                   describeMismatch(c, BufferCounts[c.name]);
        if (c.guardBefore > 0 || c.guardAfter > 0)
          wrong += (wrong.empty() ? "" : "; ") + describeGuards(c);
      }
      if (!wrong.empty()) {
        r.status = EvalStatus::WrongResult;
        r.reason = wrong;
        return r;
      }
    }
    return std::nullopt;
  }

  /// A live worker whose buffers hold this shape's inputs and reference.
  std::optional<EvalResult> ensureShape(const Shape &shape,
                                        const Configuration &config) {
    if (auto it = ReferenceFailures.find(shape);
        it != ReferenceFailures.end()) {
      EvalResult f = it->second;
      auto full = Binding.complete(config);
      if (!(full && *full == Binding.defaultConfig())) {
        f.status = EvalStatus::RuntimeError;
        f.reason =
            "no reference at shape " + shapeText(shape) + ": " + f.reason;
      }
      return f;
    }
    if (!Worker || !Worker->alive()) {
      auto restarted = WorkerClient::start(WorkerSettings);
      if (!restarted) {
        EvalResult f;
        f.status = EvalStatus::RuntimeError;
        f.reason = "cannot restart the worker: " + restarted.error().str();
        return f;
      }
      Worker = std::move(*restarted);
      ++Restarts;
      CurrentShape.reset();
      Handles.clear();
    }
    if (CurrentShape && *CurrentShape == shape)
      return std::nullopt;
    CurrentShape.reset();
    auto failed = setUpShape(shape);
    if (failed) {
      ReferenceFailures[shape] = *failed;
      return ensureShape(shape, config); // words it for this configuration
    }
    CurrentShape = shape;
    return std::nullopt;
  }

  std::optional<EvalResult> setUpShape(const Shape &shape) {
    EvalResult f;
    f.status = EvalStatus::RuntimeError;
    auto plans = Binding.buffers(shape, InputSeed);
    if (!plans) {
      f.reason = "buffers: " + plans.error().str();
      return f;
    }
    std::vector<protocol::BufferSpec> specs;
    HasIntegerOutput = false;
    BufferCounts.clear();
    for (const auto &p : *plans) {
      protocol::BufferSpec s;
      s.name = p.name;
      s.dtype = p.dtype;
      s.count = p.count;
      s.role = p.role;
      s.fillMode = fillMode(p.init);
      s.low = p.low;
      s.high = p.high;
      s.seed = p.seed;
      Tolerance tol = toleranceFor(Options.spec.tolerance, p.dtype);
      s.rtol = tol.rtol;
      s.atol = tol.atol;
      specs.push_back(s);
      BufferCounts[p.name] = p.count;
      if (p.role != Role::In && !dtypeInfo(p.dtype).isFloat)
        HasIntegerOutput = true;
    }
    auto setUp = Worker->setup(Helpers, specs);
    if (!setUp)
      return workerFailure(setUp.error(), "setting up buffers: ", f);

    // The reference outputs: the user's reference kernel, else the default
    // configuration (the original constants).
    const Configuration &def = Binding.defaultConfig();
    EvalResult r;
    auto prepared = compileAndPrune(shape, def, r);
    if (!prepared) {
      r.reason = "the default configuration is " +
                 std::string(statusText(r.status)) + ": " + r.reason;
      r.status =
          r.status == EvalStatus::Pruned ? EvalStatus::RuntimeError : r.status;
      return r;
    }
    CompiledKernel kernel = prepared->Kernel;
    if (auto ref = Binding.referenceNameExpression()) {
      auto compiled = Compiler->get({*ref, 0});
      if (!compiled) {
        r.status = EvalStatus::CompileError;
        r.reason =
            "the reference kernel " + *ref + ": " + compiled.error().str();
        return r;
      }
      kernel = *compiled;
    }
    auto loaded = loadKernel(kernel);
    if (!loaded)
      return workerFailure(loaded.error(), "loading the reference: ", r);
    auto run = Worker->run(loaded->handle, prepared->Launch, 0xFF, true);
    if (!run)
      return workerFailure(run.error(), "the reference run: ", r);
    for (const auto &c : run->result.checks) {
      if ((c.guardBefore > 0 || c.guardAfter > 0) &&
          Warned.insert("guard " + c.name + shapeText(shape)).second)
        std::fprintf(stderr, "ktune: note: the reference at shape %s: %s\n",
                     shapeText(shape).c_str(), describeGuards(c).c_str());
      if (c.wantNonFinite > 0 &&
          Warned.insert(c.name + shapeText(shape)).second)
        std::fprintf(
            stderr,
            "ktune: note: reference output '%s' at shape %s holds %llu "
            "NaN/Inf values (elements the reference leaves unwritten "
            "are NaN)\n",
            c.name.c_str(), shapeText(shape).c_str(),
            static_cast<unsigned long long>(c.wantNonFinite));
    }
    return std::nullopt;
  }

  static const char *statusText(EvalStatus s) {
    switch (s) {
    case EvalStatus::Ok:
      return "ok";
    case EvalStatus::Pruned:
      return "pruned";
    case EvalStatus::CompileError:
      return "a compile error";
    case EvalStatus::RuntimeError:
      return "a runtime error";
    case EvalStatus::Timeout:
      return "a timeout";
    case EvalStatus::WrongResult:
      return "a wrong result";
    }
    return "?";
  }

  CudaTuneOptions Options;
  KernelBinding Binding;
  std::unique_ptr<NvrtcCompiler> Compiler;
  std::unique_ptr<NvrtcCompiler> HelperCompiler; // owns the helpers' image
  DeviceLimits Limits;
  std::unique_ptr<WorkerClient> Worker;
  json Helpers;
  WorkerClient::Settings WorkerSettings;
  bool CompileOnly = false;

  std::optional<Shape> CurrentShape;
  std::map<Shape, EvalResult> ReferenceFailures;
  std::map<std::string, LoadedKernel> Handles;
  std::map<std::string, int64_t> BufferCounts;
  bool HasIntegerOutput = false;
  std::set<std::string> Warned;
  int Restarts = 0;
};

Expected<const ManifestKernel *> findKernel(const CudaTuneOptions &o) {
  std::string name = o.kernel.empty() ? o.spec.kernel : o.kernel;
  if (name.empty()) {
    if (o.manifest.kernels.size() == 1)
      return &o.manifest.kernels.front();
    return makeError("the manifest has several kernels: name one");
  }
  const ManifestKernel *k = o.manifest.findKernel(name);
  if (!k)
    return makeError("the manifest has no kernel '" + name + "'");
  return k;
}

Expected<std::string> templateSource(const CudaTuneOptions &o) {
  if (!o.templateSource.empty())
    return o.templateSource;
  if (o.templatePath.empty())
    return makeError("no template source and no template path");
  return readFile(o.templatePath);
}

NvrtcSettings compilerSettings(const CudaTuneOptions &o,
                               const std::string &arch) {
  NvrtcSettings s;
  s.arch = arch;
  if (!o.templatePath.empty()) {
    fs::path dir = fs::path(o.templatePath).parent_path();
    s.includePaths.push_back(dir.empty() ? "." : dir.string());
  }
  s.extraOptions = o.spec.compileOptions;
  s.cacheDir = o.cacheDir;
  s.jobs = o.jobs;
  return s;
}

std::string sourceName(const CudaTuneOptions &o) {
  return o.templatePath.empty() ? "kernel.tpl.cu"
                                : fs::path(o.templatePath).filename().string();
}

/// Compiles the helper kernels into one image and names them for the worker.
Expected<std::pair<std::unique_ptr<NvrtcCompiler>, json>>
compileHelpers(const std::string &arch, const std::string &cacheDir) {
  NvrtcSettings s;
  s.arch = arch;
  s.cacheDir = cacheDir;
  s.jobs = 1; // one program: one image for all helpers
  s.maxBatch = 1024;
  auto compiler =
      NvrtcCompiler::create(helperKernelSource(), "ktune_helpers.cu", s);
  if (!compiler)
    return std::unexpected(compiler.error());
  auto insts = helperInstantiations();
  auto results = (*compiler)->compileAll(insts);
  for (size_t i = 0; i < results.size(); ++i)
    if (!results[i])
      return makeError("the verification kernel " + insts[i].nameExpression +
                       " does not compile for " + arch + ": " +
                       results[i].error().str());
  json fill = json::object(), compare = json::object(),
       readPair = json::object();
  std::string image;
  size_t i = 0;
  for (const auto &info : allDTypes()) {
    for (HelperKind kind :
         {HelperKind::Fill, HelperKind::Compare, HelperKind::ReadPair}) {
      const auto &r = results[i++];
      if (!image.empty() && r->imagePath != image)
        return makeError("the verification kernels were compiled into several "
                         "images");
      image = r->imagePath;
      json &table = kind == HelperKind::Fill      ? fill
                    : kind == HelperKind::Compare ? compare
                                                  : readPair;
      table[std::string(info.name)] = r->loweredName;
    }
  }
  json helpers{
      {"helper_image", image},
      {"helpers",
       {{"fill", fill}, {"compare", compare}, {"read_pair", readPair}}}};
  return std::make_pair(std::move(*compiler), helpers);
}

/// The architecture to compile for on this device: the device's own when
/// NVRTC knows it, else PTX for the newest architecture it knows below.
Expected<std::string> deviceArch(const DeviceLimits &limits,
                                 const std::string &requested) {
  if (!requested.empty()) {
    auto want = parseArch(requested);
    if (!want)
      return std::unexpected(want.error());
    bool runs =
        requested.starts_with("compute_")
            ? ((*want)[0] * 10 + (*want)[1] <=
               limits.ccMajor * 10 + limits.ccMinor)
            : ((*want)[0] == limits.ccMajor && (*want)[1] <= limits.ccMinor);
    if (!runs)
      return makeError("code for " + requested + " does not run on " +
                       limits.name + " (" + limits.arch + ")");
    return requested;
  }
  auto supported = nvrtcSupportedArchs();
  if (supported.empty() || std::find(supported.begin(), supported.end(),
                                     limits.arch) != supported.end())
    return limits.arch;
  int device = limits.ccMajor * 10 + limits.ccMinor, best = 0;
  for (const auto &a : supported)
    if (auto cc = parseArch(a); cc && (*cc)[0] * 10 + (*cc)[1] <= device)
      best = std::max(best, (*cc)[0] * 10 + (*cc)[1]);
  if (best == 0)
    return makeError(nvrtcVersionString() + " cannot compile for " +
                     limits.arch);
  return "compute_" + std::to_string(best);
}

} // namespace

bool cudaDeviceAvailable() {
  static std::once_flag once;
  static bool available = false;
  std::call_once(once, [] {
    if (const char *off = std::getenv("KTUNE_NO_GPU");
        off && *off && *off != '0')
      return;
    auto exe = findWorkerExecutable();
    if (!exe)
      return;
    WorkerClient::Settings s;
    s.executable = *exe;
    s.watchdogSeconds = 30;
    s.stderrPath = "/dev/null";
    auto client = WorkerClient::start(s);
    available = client && (*client)->devices() > 0;
  });
  return available;
}

Expected<std::unique_ptr<Evaluator>>
createCudaEvaluator(const CudaTuneOptions &options) {
  auto kernel = findKernel(options);
  if (!kernel)
    return std::unexpected(kernel.error());
  auto binding = KernelBinding::create(**kernel, options.spec);
  if (!binding)
    return std::unexpected(withContext(binding.error(), "spec"));
  auto source = templateSource(options);
  if (!source)
    return std::unexpected(source.error());
  auto exe = findWorkerExecutable();
  if (!exe)
    return std::unexpected(exe.error());
  WorkerClient::Settings settings;
  settings.executable = *exe;
  settings.watchdogSeconds = options.watchdogSeconds;
  auto worker = WorkerClient::start(settings);
  if (!worker)
    return std::unexpected(worker.error());
  if ((*worker)->devices() == 0)
    return makeError("no CUDA device is visible to the worker");
  DeviceLimits limits = (*worker)->limits();
  auto arch = deviceArch(limits, options.arch);
  if (!arch)
    return std::unexpected(arch.error());
  auto compiler = NvrtcCompiler::create(*source, sourceName(options),
                                        compilerSettings(options, *arch));
  if (!compiler)
    return std::unexpected(compiler.error());
  auto helpers = compileHelpers(*arch, options.cacheDir);
  if (!helpers)
    return std::unexpected(helpers.error());
  return std::unique_ptr<Evaluator>(new CudaEvaluator(
      options, std::move(*binding), std::move(*compiler),
      std::move(helpers->first), std::move(limits), std::move(*worker),
      std::move(helpers->second), settings, false));
}

Expected<std::unique_ptr<Evaluator>>
createCompileOnlyEvaluator(const CudaTuneOptions &options) {
  auto kernel = findKernel(options);
  if (!kernel)
    return std::unexpected(kernel.error());
  auto binding = KernelBinding::create(**kernel, options.spec);
  if (!binding)
    return std::unexpected(withContext(binding.error(), "spec"));
  auto source = templateSource(options);
  if (!source)
    return std::unexpected(source.error());
  std::string arch = options.arch.empty() ? "sm_90" : options.arch;
  auto limits = staticDeviceLimits(arch);
  if (!limits)
    return std::unexpected(limits.error());
  auto compiler = NvrtcCompiler::create(*source, sourceName(options),
                                        compilerSettings(options, arch));
  if (!compiler)
    return std::unexpected(compiler.error());
  return std::unique_ptr<Evaluator>(new CudaEvaluator(
      options, std::move(*binding), std::move(*compiler), nullptr,
      std::move(*limits), nullptr, json(), {}, true));
}

} // namespace ktune
