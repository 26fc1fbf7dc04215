//===- CudaEvaluator.cpp - Evaluate: compile, prune, run, verify, time ----===//
//
// The steps that need no device (compile and prune), and evaluate/retime,
// which drive them and the worker (CudaEvaluatorWorker.cpp). The flow is
// described in CudaEvaluatorImpl.h.
//
//===----------------------------------------------------------------------===//
#include "CudaEvaluatorImpl.h"

#include "ktune/Cuda/TimingStats.h"
#include "ktune/Target/Occupancy.h"
#include "ktune/Target/Pruning.h"

namespace ktune {

namespace {

/// Interleaved retiming: rounds x launches (or batches) per round.
constexpr int RetimeRounds = 10;
constexpr int RetimeRepsPerRound = 10;

} // namespace

void CudaEvaluator::prepare(const std::vector<Configuration> &upcoming) {
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

CompilerReport CudaEvaluator::compiler() const {
  CompilerReport r = Report;
  CompileStats s = Compiler->stats();
  r.calls = s.programs;
  r.instantiations = s.instantiations;
  r.cacheHits = s.cacheHits;
  r.failures = s.failures;
  r.compileSeconds = s.compileSeconds;
  return r;
}

EvalResult CudaEvaluator::evaluate(const Shape &shape,
                                   const Configuration &config) {
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
CudaEvaluator::retime(const Shape &shape,
                      const std::vector<Configuration> &configs) {
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
        out[i] = workerFailure(loaded.error(), "loading the module: ", out[i]);
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

protocol::TimeOptions CudaEvaluator::timeOptions(int fixedReps) const {
  protocol::TimeOptions o;
  o.coldL2 = Options.coldL2;
  o.rule.maxSeconds = Options.maxTimingSecondsPerConfig;
  o.rule.targetRelIqr = Options.targetRelativeIqr;
  o.fixedReps = fixedReps;
  return o;
}

Timing CudaEvaluator::toTiming(const std::vector<double> &samples,
                               bool graphBatched) const {
  SampleSummary s = summarize(samples);
  Timing t;
  t.medianUs = s.median;
  t.iqrUs = s.iqr();
  t.reps = static_cast<int>(s.count);
  t.graphBatched = graphBatched;
  t.coldL2 = Options.coldL2;
  return t;
}

EvalResult CudaEvaluator::merge(EvalResult failure, const EvalResult &soFar) {
  failure.resources = soFar.resources;
  failure.compileMs = soFar.compileMs;
  return failure;
}

std::optional<CudaEvaluator::Prepared>
CudaEvaluator::compileAndPrune(const Shape &shape, const Configuration &config,
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
  // A launcher computes its own launch: its geometry, when the manifest's
  // can be evaluated over the launcher's names, only prunes and reports.
  auto dims = Binding.launch(shape, *full);
  const bool knownDims = dims.has_value();
  if (!dims && !Binding.launcherMode())
    return fail(EvalStatus::Pruned,
                "launch geometry cannot be evaluated: " + dims.error().str());
  if (!dims)
    dims = LaunchDims{};
  if (knownDims) {
    r.resources.threadsPerBlock = static_cast<int>(dims->threadsPerBlock());
    r.resources.smemDynamic = static_cast<int>(dims->smemDynamic);
    if (auto why = geometryPruneReason(Limits, *dims))
      return fail(EvalStatus::Pruned, *why);
  }

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
  if (!knownDims) {
    // Nothing to prune by: the launcher's launch fails if it is invalid.
  } else if (auto why =
                 resourcePruneReason(Limits, *dims, res.registers,
                                     r.resources.smemStatic, res.barriers)) {
    return fail(EvalStatus::Pruned, *why);
  }
  if (res.registers >= 0 && knownDims)
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

} // namespace ktune
