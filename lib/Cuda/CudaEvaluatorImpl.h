//===- CudaEvaluatorImpl.h - The GPU evaluator's parts ----------*- C++ -*-===//
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
// CudaEvaluator.cpp: evaluate, retime and the compile/prune steps;
// CudaEvaluatorWorker.cpp: loading, verifying and the shape's buffers in the
// worker; CreateEvaluator.cpp: building an evaluator.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_LIB_CUDA_CUDAEVALUATORIMPL_H
#define KTUNE_LIB_CUDA_CUDAEVALUATORIMPL_H

#include "ktune/Cuda/CudaEvaluator.h"
#include "ktune/Cuda/KernelCompiler.h"
#include "ktune/Cuda/NvrtcCompiler.h"
#include "ktune/Cuda/WorkerClient.h"
#include "ktune/Tune/KernelBinding.h"

#include <map>
#include <optional>
#include <set>

namespace ktune {

class CudaEvaluator final : public Evaluator {
public:
  /// `compiler` builds the configurations: NVRTC or nvcc instantiations of
  /// the kernel, or (launcher mode) nvcc modules of the launcher; `report`
  /// says which and why (its counters are filled in on asking).
  CudaEvaluator(CudaTuneOptions options, KernelBinding binding,
                std::unique_ptr<KernelCompiler> compiler, CompilerReport report,
                std::unique_ptr<NvrtcCompiler> helperCompiler,
                DeviceLimits limits, std::unique_ptr<WorkerClient> worker,
                nlohmann::json helpers, WorkerClient::Settings workerSettings,
                bool compileOnly)
      : Options(std::move(options)), Binding(std::move(binding)),
        Compiler(std::move(compiler)), Report(std::move(report)),
        HelperCompiler(std::move(helperCompiler)), Limits(std::move(limits)),
        Worker(std::move(worker)), Helpers(std::move(helpers)),
        WorkerSettings(std::move(workerSettings)), CompileOnly(compileOnly) {}

  std::string device() const override { return Limits.name; }
  std::string arch() const override { return Compiler->arch(); }
  CompilerReport compiler() const override;
  void prepare(const std::vector<Configuration> &upcoming) override;
  EvalResult evaluate(const Shape &shape, const Configuration &config) override;
  std::vector<EvalResult>
  retime(const Shape &shape,
         const std::vector<Configuration> &configs) override;
  /// In a worker of its own, started under Nsight Compute for these
  /// configurations and ended to have its log written.
  Expected<std::vector<HardwareCounters>>
  profile(const Shape &shape, const std::vector<Configuration> &configs,
          const ProfileRequest &request) override;

private:
  struct Prepared {
    Configuration Config;
    CompiledKernel Kernel;
    LaunchDims Dims;
    protocol::Launch Launch;
    int Handle = -1;
  };

  // Compiling and pruning (CudaEvaluator.cpp).
  protocol::TimeOptions timeOptions(int fixedReps) const;
  Timing toTiming(const std::vector<double> &samples, bool graphBatched) const;
  static EvalResult merge(EvalResult failure, const EvalResult &soFar);
  /// Everything that needs no device. Fills `r`; returns the launch when the
  /// configuration may run.
  std::optional<Prepared> compileAndPrune(const Shape &shape,
                                          const Configuration &config,
                                          EvalResult &r);

  // The worker (CudaEvaluatorWorker.cpp).
  EvalResult workerFailure(const WorkerFailure &f, const std::string &context,
                           EvalResult base);
  WorkerResult<LoadedKernel> loadKernel(const CompiledKernel &k);
  /// Loads, runs once with poisoned outputs and compares with the reference.
  std::optional<EvalResult> loadAndVerify(Prepared &p, EvalResult &r);
  /// A live worker whose buffers hold this shape's inputs and reference.
  std::optional<EvalResult> ensureShape(const Shape &shape,
                                        const Configuration &config);
  std::optional<EvalResult> setUpShape(const Shape &shape);

  CudaTuneOptions Options;
  KernelBinding Binding;
  std::unique_ptr<KernelCompiler> Compiler;
  CompilerReport Report;
  std::unique_ptr<NvrtcCompiler> HelperCompiler; // owns the helpers' image
  DeviceLimits Limits;
  std::unique_ptr<WorkerClient> Worker;
  nlohmann::json Helpers;
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

} // namespace ktune

#endif
