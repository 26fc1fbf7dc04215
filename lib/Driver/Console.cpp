//===- Console.cpp - What the tuning tools print --------------------------===//

#include "ktune/Driver/Console.h"

#include <cstdio>
#include <unistd.h>

namespace ktune::driver {

ProgressOptions progressOnStderr(uint64_t every) {
  ProgressOptions progress;
  progress.out = stderr;
  progress.tty = ::isatty(::fileno(stderr));
  progress.every = every;
  return progress;
}

void printSessionOutputs(const SessionReport &report) {
  if (!report.gpuActivity.empty())
    std::fputs(
        formatGpuActivity(report.gpuActivity, report.wallSeconds).c_str(),
        stderr);
  if (!report.resultsPath.empty())
    std::fprintf(stderr, "wrote %s\n", report.resultsPath.c_str());
  if (!report.journalPath.empty())
    std::fprintf(stderr, "journal %s\n", report.journalPath.c_str());
  if (!report.t4Path.empty())
    std::fprintf(stderr, "wrote %s\n", report.t4Path.c_str());
  if (!report.headerPath.empty())
    std::fprintf(stderr, "wrote %s\n", report.headerPath.c_str());
}

} // namespace ktune::driver
