//===- ktune/Tune/MultiDevice.h - One search over several GPUs --*- C++ -*-===//
//
// Identical GPUs share one search: a DeviceGroup is an Evaluator made of
// one worker evaluator per GPU (each pinned to its GPU, each with its own
// worker process and watchdog; a GPU of another host is a worker too,
// lib/Cluster). Each worker takes the next configuration of a batch when it
// is free, so at most one kernel is timed per GPU at a time; each result
// comes back stamped with its GPU and is handed on as soon as it finishes.
// A worker that is lost (a host gone) gives its configuration back to the
// others and takes no more. Compiling ahead uses the first worker; compiled
// code is shared through the on-disk cache. A shape's finalists are
// compared on one device: while the search goes on, on the last GPU of the
// host (re-timing aside), and at the end on every GPU, a shape each.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_TUNE_MULTIDEVICE_H
#define KTUNE_TUNE_MULTIDEVICE_H

#include "ktune/Tune/Evaluator.h"

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace ktune {

/// What one GPU of a group did: for progress lines and the report.
struct WorkerActivity {
  int gpu = -1;
  uint64_t evaluations = 0;
  double busySeconds = 0;
  bool busy = false;
  int rank = -1; // the MPI rank of the worker's host; -1: one host
  /// Lost workers take no more work; what they had in flight went back.
  bool lost = false;
  std::string lostReason;
  uint64_t requeued = 0;
};

class DeviceGroup : public Evaluator {
public:
  /// `gpus[i]` names the GPU of `workers[i]` (an ordinal, or a virtual
  /// device number); `ranks`, when given, the host (MPI rank) of each.
  /// Every worker must report the same device and arch.
  static Expected<std::unique_ptr<DeviceGroup>>
  create(std::vector<std::unique_ptr<Evaluator>> workers, std::vector<int> gpus,
         std::vector<int> ranks = {});
  /// Waits for a re-timing under way aside.
  ~DeviceGroup() override;

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
  /// A shape per worker at once, each interleaved on its worker.
  std::vector<std::vector<EvalResult>>
  retimeShapes(const std::vector<RetimeJob> &jobs) override;
  /// Re-timing aside: the last GPU of this host (never the first, which
  /// compiles) is taken from the search while shapes wait for it.
  bool retimeAside(const RetimeJob &job) override;
  std::vector<std::optional<std::vector<EvalResult>>> collectAside() override;
  size_t parallelism() const override { return Workers.size(); }
  /// On the first GPU (the search is over when a run profiles).
  Expected<std::vector<HardwareCounters>>
  profile(const Shape &shape, const std::vector<Configuration> &configs,
          const ProfileRequest &request) override {
    return Workers[0]->profile(shape, configs, request);
  }
  void evaluateBatch(const Shape &shape,
                     const std::vector<Configuration> &configs,
                     const BatchDone &done) override;
  /// Each worker keeps to the shape it has set up while that shape has
  /// work left (a new shape costs a reference run).
  void evaluateAcrossShapes(const std::vector<ShapedConfig> &tasks,
                            const BatchDone &done) override;

  /// Per GPU, in worker order.
  std::vector<WorkerActivity> activity() const;
  /// Called (never concurrently) when a worker is lost, with its activity.
  void onWorkerLost(std::function<void(const WorkerActivity &)> callback) {
    OnLost = std::move(callback);
  }

private:
  DeviceGroup() = default;
  /// Worker `w` starts its one task: busy until finishTask.
  void startTask(size_t w);
  /// Worker `w`'s task (begun at `begin`, `evaluations` made) is done: its
  /// activity; a lost worker's task goes back to the others (requeued), and
  /// the loss, with `reason`, is reported once.
  void finishTask(size_t w, std::chrono::steady_clock::time_point begin,
                  size_t evaluations, const std::string &reason);
  EvalResult runOn(size_t worker, const Shape &shape,
                   const Configuration &config);
  /// The queue behind evaluateBatch and evaluateAcrossShapes: `tasks[i]`
  /// at `*shapes[i]`.
  void runQueue(const std::vector<const Shape *> &shapes,
                const std::vector<const Configuration *> &configs,
                const BatchDone &done);
  /// `serve(w)` on each live worker (at most `most`; with `thisHostOnly`,
  /// rank 0's or a single host's), each on its own thread.
  void onWorkers(size_t most, bool thisHostOnly,
                 const std::function<void(size_t)> &serve);
  /// The first live worker the search may use (not re-timing aside).
  std::optional<size_t> firstLive() const;
  /// Between evaluations (no batch running): hands a worker to the
  /// re-timings queued aside, if any wait and the search keeps a worker.
  void startAside();
  /// Shapes to re-time, a worker each (guarded by Lock).
  struct RetimeQueue {
    std::vector<RetimeJob> jobs;
    std::vector<std::optional<std::vector<EvalResult>>> results;
    std::vector<bool> started;
  };
  /// Worker `w` re-times queued shapes, the costliest first, until none is
  /// left (or it is lost: its shape goes back to the queue).
  void drain(size_t w, RetimeQueue &queue);
  /// Worker `w` re-times `configs`; its activity and the results' device.
  std::vector<EvalResult> retimeOn(size_t w, const Shape &shape,
                                   const std::vector<Configuration> &configs);
  std::vector<std::unique_ptr<Evaluator>> Workers;
  std::vector<int> Gpus;
  mutable std::mutex Lock;
  std::vector<WorkerActivity> Activity;
  std::function<void(const WorkerActivity &)> OnLost;
  /// Re-timing aside (guarded by Lock).
  struct Aside {
    RetimeQueue queue;
    std::optional<size_t> worker; // taken from the search
    bool closed = false;          // collecting
    std::thread thread;
  } Side;
  std::condition_variable SideDone;
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
/// Whether `busySeconds` of work in `wallSeconds` is enough to state a
/// speedup: synthetic evaluations take next to no time and say nothing.
bool speedupIsMeasurable(double busySeconds, double wallSeconds);
/// One worker's name: "GPU 1", or "rank 2 GPU 1" across hosts.
std::string workerLabel(const WorkerActivity &a);
/// For the progress line: "GPUs 0:12* 1:11" (evaluations, * = timing now);
/// across hosts "GPUs 0.0:12* 1.0:9 2.0:lost" (rank.GPU).
std::string formatGpuActivityBrief(const std::vector<WorkerActivity> &activity);

/// "all" -> every ordinal below `available`; "0,2,3" -> those (each below
/// `available`, no repeats). Errors name --gpus.
Expected<std::vector<int>> parseGpuList(const std::string &text, int available);

/// The most virtual devices a simulated or synthetic run may have.
constexpr int MaxVirtualDevices = 1024;

} // namespace ktune

#endif
