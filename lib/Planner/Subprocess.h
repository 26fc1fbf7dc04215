//===- Subprocess.h - Running a planner command with a deadline -*- C++ -*-===//
#ifndef KTUNE_LIB_PLANNER_SUBPROCESS_H
#define KTUNE_LIB_PLANNER_SUBPROCESS_H

#include "ktune/Support/Error.h"

#include <map>
#include <string>

namespace ktune::planner {

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

/// Runs `/bin/sh -c <commandLine>` in its own process group, writes `input`
/// to its stdin (then closes it) while reading stdout and stderr, and waits.
/// At the deadline the whole group is killed (SIGKILL) and timedOut set.
/// Errors only when the process cannot be started.
Expected<ProcessResult> runShellCommand(const std::string &commandLine,
                                        const std::string &input,
                                        const ProcessOptions &options);

} // namespace ktune::planner

#endif
