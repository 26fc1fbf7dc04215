//===- ktune/Cuda/WorkerProcess.h - A child process on a socket -*- C++ -*-===//
//
// Starts the worker executable with a socket pair as its stdin and stdout
// and exchanges JSON lines with it. Each request has a deadline: a worker
// that does not answer in time (a hung kernel) is killed, and one that dies
// (a crash, a fatal CUDA error) is reaped and described. The tuner process
// itself never initialises CUDA, so it stays safe to fork and outlives any
// fault of the kernels it runs.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_CUDA_WORKERPROCESS_H
#define KTUNE_CUDA_WORKERPROCESS_H

#include "ktune/Support/Error.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <sys/types.h>
#include <vector>

namespace ktune {

class WorkerProcess {
public:
  struct Outcome {
    enum class Kind { Reply, Timeout, Died };
    Kind kind = Kind::Reply;
    nlohmann::json reply; // Kind::Reply
    std::string detail;   // otherwise: what happened, in words
  };

  /// Starts `executable args...`. `stderrPath` empty: the worker's stderr is
  /// ours; otherwise it goes to that file (e.g. /dev/null).
  static Expected<std::unique_ptr<WorkerProcess>>
  start(const std::string &executable, const std::vector<std::string> &args = {},
        const std::string &stderrPath = {});
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess &) = delete;
  WorkerProcess &operator=(const WorkerProcess &) = delete;

  /// Sends one message and waits up to `timeoutSeconds` for one reply line.
  /// On Timeout the worker has been killed; on Died it has been reaped.
  Outcome request(const nlohmann::json &message, double timeoutSeconds);

  /// SIGKILL and reap (idempotent).
  void kill();
  bool running() const { return Pid > 0; }
  pid_t pid() const { return Pid; }

private:
  WorkerProcess() = default;
  /// Waits for the process to end (up to `graceSeconds`, then SIGKILL);
  /// returns how it ended.
  std::string reap(double graceSeconds);
  pid_t Pid = -1;
  int Fd = -1;
  std::string Buffered;
};

/// The ktune-worker executable: $KTUNE_WORKER, else beside the running
/// program, else where the build put it.
Expected<std::string> findWorkerExecutable();

} // namespace ktune

#endif
