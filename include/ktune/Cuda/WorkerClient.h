//===- ktune/Cuda/WorkerClient.h - Typed requests to the worker -*- C++ -*-===//
//
// The tuner's side of the worker protocol: starts ktune-worker, says hello
// (learning the device's limits), and sends setup / load / run / time
// requests with deadlines derived from the watchdog. A request that times
// out, or after which the worker died or reported a fatal CUDA error, leaves
// the client without a process (alive() is false); the evaluator then starts
// a new one and re-creates its state.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_CUDA_WORKERCLIENT_H
#define KTUNE_CUDA_WORKERCLIENT_H

#include "ktune/Cuda/WorkerProcess.h"
#include "ktune/Cuda/WorkerProtocol.h"
#include "ktune/Target/DeviceLimits.h"

#include <expected>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ktune {

struct WorkerFailure {
  bool timeout = false;    // the watchdog killed the worker
  bool workerLost = false; // the worker is gone (timeout, crash, fatal error)
  std::string message;
};

template <class T> using WorkerResult = std::expected<T, WorkerFailure>;

struct LoadedKernel : protocol::FunctionAttributes {
  int handle = -1;
};

struct RunReply {
  protocol::RunResult result;
  int blocksPerSM = -1;
};

class WorkerClient {
public:
  struct Settings {
    std::string executable;
    double watchdogSeconds = 10.0;
    std::string stderrPath; // empty: inherit
    /// Added to the worker's environment (KTUNE_DEVICE pins it to a GPU).
    std::map<std::string, std::string> environment;
    /// A program the worker runs under, with its arguments (a profiler):
    /// `wrapper... executable`.
    std::vector<std::string> wrapper;
  };

  /// Starts the worker and says hello. Errors when it cannot start or
  /// answer; a machine without devices answers with devices() == 0.
  static Expected<std::unique_ptr<WorkerClient>>
  start(const Settings &settings);

  int devices() const { return Devices; }
  const DeviceLimits &limits() const { return Limits; }
  bool alive() const { return Process && Process->running(); }
  void kill();

  WorkerResult<int64_t> setup(const nlohmann::json &helpers,
                              const std::vector<protocol::BufferSpec> &buffers);
  WorkerResult<LoadedKernel> load(const std::string &image,
                                  const std::string &function);
  WorkerResult<void> unloadAll();
  /// One launch under a profiler (protocol.h: "profile").
  WorkerResult<void> profile(int handle, const protocol::Launch &launch);
  /// Asks the worker to exit and waits up to `graceSeconds` for it (and a
  /// wrapper writing its results) to end; says how it ended.
  ExitStatus quit(double graceSeconds);
  WorkerResult<RunReply> run(int handle, const protocol::Launch &launch,
                             int poison, bool makeReference);
  WorkerResult<protocol::TimeResult> time(int handle,
                                          const protocol::Launch &launch,
                                          const protocol::TimeOptions &options);

private:
  WorkerClient() = default;
  WorkerResult<nlohmann::json> call(const nlohmann::json &request,
                                    double timeoutSeconds);
  Settings Config;
  std::unique_ptr<WorkerProcess> Process;
  int Devices = 0;
  DeviceLimits Limits;
};

} // namespace ktune

#endif
