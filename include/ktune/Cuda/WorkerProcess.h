//===- ktune/Cuda/WorkerProcess.h - The worker process ----------*- C++ -*-===//
//
// Starts the worker executable with pipes as its stdin and stdout
// (ktune/Support/Process.h) and exchanges JSON lines with it. Each request has
// a deadline: a worker that does not answer in time (a hung kernel) is killed,
// and one that dies (a crash, a fatal CUDA error) is reaped and described. The
// tuner process itself never initialises CUDA, so it stays safe to fork and
// outlives any fault of the kernels it runs.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_CUDA_WORKERPROCESS_H
#define KTUNE_CUDA_WORKERPROCESS_H

#include "ktune/Support/Error.h"
#include "ktune/Support/Process.h"

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <optional>
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
  start(const std::string &executable,
        const std::vector<std::string> &args = {},
        const std::string &stderrPath = {},
        const std::map<std::string, std::string> &environment = {});
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess &) = delete;
  WorkerProcess &operator=(const WorkerProcess &) = delete;

  /// Sends one message and waits up to `timeoutSeconds` for one reply line.
  /// On Timeout the worker has been killed; on Died it has been reaped.
  Outcome request(const nlohmann::json &message, double timeoutSeconds);

  /// Sends a last message (no reply expected), closes the worker's stdin
  /// and waits up to `graceSeconds` for it to end, then kills it.
  ExitStatus finish(const nlohmann::json &message, double graceSeconds);

  /// SIGKILL and reap (idempotent).
  void kill();
  bool running() const { return Child && Child->running(); }
  pid_t pid() const { return Child ? Child->pid() : -1; }

private:
  WorkerProcess() = default;
  /// Waits for the process to end (up to `graceSeconds`, then SIGKILL);
  /// returns how it ended.
  std::string reap(double graceSeconds);
  std::optional<ChildProcess> Child;
  std::string Buffered; // read beyond the last reply
};

/// The ktune-worker executable: $KTUNE_WORKER, else beside the running
/// program, else where the build put it.
Expected<std::string> findWorkerExecutable();

} // namespace ktune

#endif
