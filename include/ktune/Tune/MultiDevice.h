//===- ktune/Tune/MultiDevice.h - One search over several GPUs --*- C++ -*-===//
//
// Identical GPUs share one search: a DeviceGroup is an Evaluator made of
// one worker evaluator per GPU (each pinned to its GPU, each with its own
// worker process and watchdog). A batch goes out one configuration per
// worker, so at most one kernel is timed per GPU at a time; each result
// comes back stamped with its GPU and is handed on as soon as it finishes.
// Compiling ahead and re-timing (which compares finalists on one device)
// use the first worker; compiled code is shared through the on-disk cache.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_TUNE_MULTIDEVICE_H
#define KTUNE_TUNE_MULTIDEVICE_H

#include "ktune/Tune/Evaluator.h"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ktune {

/// What one GPU of a group did: for progress lines and the report.
struct WorkerActivity {
  int gpu = -1;
  uint64_t evaluations = 0;
  double busySeconds = 0;
  bool busy = false;
};

class DeviceGroup : public Evaluator {
public:
  /// `gpus[i]` names the GPU of `workers[i]` (an ordinal, or a virtual
  /// device number). Every worker must report the same device and arch.
  static Expected<std::unique_ptr<DeviceGroup>>
  create(std::vector<std::unique_ptr<Evaluator>> workers,
         std::vector<int> gpus);

  std::string device() const override { return Workers[0]->device(); }
  std::string arch() const override { return Workers[0]->arch(); }
  CompilerReport compiler() const override { return Workers[0]->compiler(); }
  void prepare(const std::vector<Configuration> &upcoming) override {
    Workers[0]->prepare(upcoming);
  }
  EvalResult evaluate(const Shape &shape, const Configuration &config) override;
  std::vector<EvalResult>
  retime(const Shape &shape,
         const std::vector<Configuration> &configs) override;
  size_t parallelism() const override { return Workers.size(); }
  void evaluateBatch(const Shape &shape,
                     const std::vector<Configuration> &configs,
                     const BatchDone &done) override;

  /// Per GPU, in worker order.
  std::vector<WorkerActivity> activity() const;

private:
  DeviceGroup() = default;
  EvalResult runOn(size_t worker, const Shape &shape,
                   const Configuration &config);
  std::vector<std::unique_ptr<Evaluator>> Workers;
  std::vector<int> Gpus;
  mutable std::mutex Lock;
  std::vector<WorkerActivity> Activity;
};

/// An Evaluator forwarding to a shared one that answers concurrent calls
/// (a replayed recording): N virtual devices over one recording.
class SharedEvaluator : public Evaluator {
public:
  explicit SharedEvaluator(std::shared_ptr<Evaluator> inner)
      : Inner(std::move(inner)) {}
  std::string device() const override { return Inner->device(); }
  std::string arch() const override { return Inner->arch(); }
  CompilerReport compiler() const override { return Inner->compiler(); }
  void prepare(const std::vector<Configuration> &upcoming) override {
    Inner->prepare(upcoming);
  }
  EvalResult evaluate(const Shape &shape,
                      const Configuration &config) override {
    return Inner->evaluate(shape, config);
  }
  std::vector<EvalResult>
  retime(const Shape &shape,
         const std::vector<Configuration> &configs) override {
    return Inner->retime(shape, configs);
  }

private:
  std::shared_ptr<Evaluator> Inner;
};

/// Evaluations and busy time per GPU, and the wall-clock speedup over one
/// GPU (the busy time of all GPUs over the wall time: what one GPU would
/// have needed for the same evaluations).
std::string formatGpuActivity(const std::vector<WorkerActivity> &activity,
                              double wallSeconds);

/// "all" -> every ordinal below `available`; "0,2,3" -> those (each below
/// `available`, no repeats). Errors name --gpus.
Expected<std::vector<int>> parseGpuList(const std::string &text, int available);

} // namespace ktune

#endif
