//===- CudaEvaluatorWorker.cpp - Load, verify and hold a shape's buffers --===//
//
// The GPU evaluator's side that talks to the worker process: the shape's
// inputs and reference outputs, loading modules, the poisoned verification
// run, and what a lost or hung worker turns into.
//
//===----------------------------------------------------------------------===//
#include "CudaEvaluatorImpl.h"

#include "ktune/Cuda/HelperKernels.h"
#include "ktune/Cuda/Ncu.h"
#include "ktune/Support/DType.h"
#include "ktune/Support/FileUtil.h"
#include "ktune/Support/Text.h"
#include "ktune/Support/Try.h"
#include "ktune/Target/Pruning.h"

#include <cmath>
#include <cstdio>

namespace ktune {

namespace {

constexpr uint64_t InputSeed = 0x6b74756e65ull;
/// Kernels loaded in one worker before it unloads all modules.
constexpr size_t MaxLoadedKernels = 512;

std::string number(double v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
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

} // namespace

EvalResult CudaEvaluator::workerFailure(const WorkerFailure &f,
                                        const std::string &context,
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

WorkerResult<LoadedKernel> CudaEvaluator::loadKernel(const CompiledKernel &k) {
  std::string key = k.imagePath + "\n" + k.loweredName;
  if (auto it = Handles.find(key); it != Handles.end())
    return it->second;
  if (Handles.size() >= MaxLoadedKernels) {
    KTUNE_TRY(Worker->unloadAll());
    Handles.clear();
  }
  auto loaded = Worker->load(k.imagePath, k.loweredName);
  if (loaded)
    Handles[key] = *loaded;
  return loaded;
}

std::optional<EvalResult> CudaEvaluator::loadAndVerify(Prepared &p,
                                                       EvalResult &r) {
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

std::optional<EvalResult>
CudaEvaluator::ensureShape(const Shape &shape, const Configuration &config) {
  if (auto it = ReferenceFailures.find(shape); it != ReferenceFailures.end()) {
    EvalResult f = it->second;
    auto full = Binding.complete(config);
    if (!(full && *full == Binding.defaultConfig())) {
      f.status = EvalStatus::RuntimeError;
      f.reason =
          "no reference at shape " + shapeLiteral(shape) + ": " + f.reason;
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

std::optional<EvalResult> CudaEvaluator::setUpShape(const Shape &shape) {
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
               std::string(statusPhrase(r.status)) + ": " + r.reason;
    r.status =
        r.status == EvalStatus::Pruned ? EvalStatus::RuntimeError : r.status;
    return r;
  }
  CompiledKernel kernel = prepared->Kernel;
  if (auto ref = Binding.referenceNameExpression()) {
    auto compiled = Compiler->get({*ref, 0});
    if (!compiled) {
      r.status = EvalStatus::CompileError;
      r.reason = "the reference kernel " + *ref + ": " + compiled.error().str();
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
        Warned.insert("guard " + c.name + shapeLiteral(shape)).second)
      std::fprintf(stderr, "ktune: note: the reference at shape %s: %s\n",
                   shapeLiteral(shape).c_str(), describeGuards(c).c_str());
    if (c.wantNonFinite > 0 &&
        Warned.insert(c.name + shapeLiteral(shape)).second)
      std::fprintf(stderr,
                   "ktune: note: reference output '%s' at shape %s holds %llu "
                   "NaN/Inf values (elements the reference leaves unwritten "
                   "are NaN)\n",
                   c.name.c_str(), shapeLiteral(shape).c_str(),
                   static_cast<unsigned long long>(c.wantNonFinite));
  }
  return std::nullopt;
}

Expected<std::vector<HardwareCounters>>
CudaEvaluator::profile(const Shape &shape,
                       const std::vector<Configuration> &configs,
                       const ProfileRequest &request) {
  if (CompileOnly)
    return makeError("a compile-only evaluator has no GPU to profile on");
  WorkerClient::Settings settings = WorkerSettings;
  settings.wrapper = ncuCommand(request.ncu, request.logPath);
  std::error_code ec;
  std::filesystem::remove(request.logPath, ec);
  auto profiler = WorkerClient::start(settings);
  if (!profiler)
    return makeError("the worker under Nsight Compute did not start: " +
                     profiler.error().str());

  // The profiling worker stands in for the tuning one meanwhile: its shape,
  // buffers and loaded kernels are its own.
  std::swap(Worker, *profiler);
  auto savedShape = std::exchange(CurrentShape, std::nullopt);
  auto savedHandles = std::exchange(Handles, {});
  auto measure = [&]() -> Status {
    for (const auto &config : configs) {
      if (auto failed = ensureShape(shape, config))
        return makeError("setting up " + shapeLiteral(shape) + ": " +
                         failed->reason);
      EvalResult r;
      auto prepared = compileAndPrune(shape, config, r);
      if (!prepared)
        return makeError(std::string(statusPhrase(r.status)) + ": " + r.reason);
      auto loaded = loadKernel(prepared->Kernel);
      if (!loaded)
        return makeError("loading the module: " + loaded.error().message);
      auto ran = Worker->profile(loaded->handle, prepared->Launch);
      if (!ran)
        return makeError(ran.error().message);
    }
    return {};
  };
  Status measured = measure();
  ExitStatus ended = Worker->quit(120);
  std::swap(Worker, *profiler);
  CurrentShape = savedShape;
  Handles = std::move(savedHandles);
  if (!measured)
    return std::unexpected(measured.error());
  auto log = readFile(request.logPath);
  if (!log)
    return makeError("Nsight Compute wrote no log (" + ended.describe() +
                     "): " + log.error().str());
  KTUNE_TRY_ASSIGN(auto counters, countersFromNcuLog(*log));
  if (counters.size() != configs.size())
    return makeError("Nsight Compute measured " +
                     std::to_string(counters.size()) + " of " +
                     std::to_string(configs.size()) + " configurations (" +
                     ended.describe() + ")");
  return counters;
}

} // namespace ktune
