//===- ktune/Support/Process.h - Child processes with deadlines -*- C++ -*-===//
//
// ktune runs other programs in two ways: a long-lived ktune-worker that
// speaks JSON lines over its stdin and stdout, killed when a request passes
// its deadline (a hung kernel), and a `command:` planner that is given a
// prompt on stdin, answers on stdout and is killed, with every helper it
// started, at its deadline. Both go through ChildProcess: piped stdin and
// stdout (stderr piped, inherited or sent to a file), optionally a process
// group of its own, I/O that never blocks past a deadline and never raises
// SIGPIPE, and the exit status in words.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_SUPPORT_PROCESS_H
#define KTUNE_SUPPORT_PROCESS_H

#include "ktune/Support/Error.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <utility>
#include <vector>

namespace ktune {

using Deadline = std::chrono::steady_clock::time_point;

/// Now plus `seconds`.
Deadline deadlineIn(double seconds);

/// How a child ended.
struct ExitStatus {
  int exitCode = -1;     // when it exited
  int signal = 0;        // when a signal ended it
  bool timedOut = false; // wait() reached its deadline and killed it

  /// "exited with status 3", "killed by signal 9 (Killed)".
  std::string describe() const;
};

struct SpawnOptions {
  /// Added to (or replacing in) the inherited environment.
  std::map<std::string, std::string> environment;
  /// A process group of its own: kill() then reaches every process it
  /// started, and a terminal's Ctrl-C does not reach it.
  bool ownProcessGroup = true;
  enum class Stderr { Pipe, Inherit, File };
  Stderr stderrTo = Stderr::Pipe;
  std::string stderrFile; // Stderr::File: appended to, created when missing
};

/// A running child. Destroying it kills and reaps it.
class ChildProcess {
public:
  /// Starts `argv[0]` (a path; PATH is not searched) with `argv`. The child
  /// gets default handling of SIGPIPE, SIGINT and SIGTERM and an empty signal
  /// mask, whatever this process has. Errors when it cannot be started.
  static Expected<ChildProcess> spawn(const std::vector<std::string> &argv,
                                      const SpawnOptions &options = {});

  ChildProcess(ChildProcess &&other) noexcept;
  ChildProcess &operator=(ChildProcess &&other) noexcept;
  ChildProcess(const ChildProcess &) = delete;
  ChildProcess &operator=(const ChildProcess &) = delete;
  ~ChildProcess();

  /// One exchange over the pipes: what to send, what came back, and why it
  /// ended.
  struct Exchange {
    std::string_view input;       // written to stdin
    bool closeInputAfter = false; // then close stdin (the child sees EOF)
    /// Stop once `input` is written and this holds for `out` (without it:
    /// once stdout, and a piped stderr, reach end of file).
    std::function<bool(const std::string &out)> enough;
    size_t maxOutput = SIZE_MAX; // bytes kept of stdout and of stderr each

    std::string out, err;      // appended to, so an exchange can continue one
    bool timedOut = false;     // the deadline came first
    bool outputClosed = false; // stdout reached end of file
    bool inputRefused = false; // stdin closed before `input` was written
    bool outputTruncated = false; // stdout exceeded maxOutput (rest dropped)
  };
  /// Writes `x.input` while reading stdout (and a piped stderr), so neither
  /// side blocks the other, until `x.enough`, end of file or `deadline`.
  void exchange(Exchange &x, Deadline deadline);

  /// Waits for the child to end; at `deadline` kills it first. Reaps it.
  ExitStatus wait(Deadline deadline);
  /// SIGKILL (to the whole group when it has its own), then reaps; returns
  /// how it ended. Does nothing to a child already reaped.
  ExitStatus kill();

  bool running() const { return Pid > 0; }
  pid_t pid() const { return Pid; }
  /// Closes stdin (the child sees end of file).
  void closeInput();

private:
  ChildProcess() = default;
  void closeAll();
  ExitStatus reaped(int status);

  pid_t Pid = -1;
  bool OwnGroup = true;
  int In = -1, Out = -1, Err = -1; // our ends of the pipes
  ExitStatus Status;
};

/// A run of a command from start to end, as runProcess gives it.
struct ProcessResult {
  int exitCode = -1; // when it exited
  int signal = 0;    // when a signal ended it
  bool timedOut = false;
  bool outputTruncated = false; // stdout over the limit (the rest dropped)
  std::string out, err;
  double seconds = 0;
};

struct ProcessOptions {
  double timeoutSeconds = 60;
  size_t maxOutputBytes = size_t(8) << 20;
  /// Added to (or replacing in) the inherited environment.
  std::map<std::string, std::string> environment;
};

/// Runs `argv` in its own process group, writes `input` to its stdin (then
/// closes it) while reading stdout and stderr, and waits for it to end. At
/// the deadline the whole group is killed (SIGKILL) and timedOut set.
/// Errors only when the process cannot be started.
Expected<ProcessResult> runProcess(const std::vector<std::string> &argv,
                                   const std::string &input,
                                   const ProcessOptions &options);

/// runProcess of `/bin/sh -c <commandLine>`.
Expected<ProcessResult> runShellCommand(const std::string &commandLine,
                                        const std::string &input,
                                        const ProcessOptions &options);

} // namespace ktune

#endif
