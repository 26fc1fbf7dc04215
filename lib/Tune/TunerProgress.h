//===- TunerProgress.h - The tuner's progress line --------------*- C++ -*-===//
//
// Private to lib/Tune: one line per update, rewritten in place on a
// terminal, with the best time so far and an estimate of the time left.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_LIB_TUNE_TUNERPROGRESS_H
#define KTUNE_LIB_TUNE_TUNERPROGRESS_H

#include "ktune/Tune/Tuner.h"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

namespace ktune::tuner {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t);
/// "1h05m", "3m20s", "42s"; "?" when unknown.
std::string durationText(double seconds);

struct ProgressLine {
  size_t shapeIndex = 0, shapeCount = 0;
  std::string shape;
  uint64_t spent = 0, budget = 0;
  std::optional<double> bestUs, defaultUs;
  double etaSeconds = NAN;
  bool timed = true; // false in compile-only runs: no "best"
};

class Progress {
public:
  explicit Progress(ProgressOptions o) : O(o) {}
  void update(const ProgressLine &p, bool force = false);
  /// Ends an in-place line before other output.
  void endLine() {
    if (O.out && O.tty && Dirty) {
      std::fputc('\n', O.out);
      std::fflush(O.out);
      Dirty = false;
    }
  }
  void note(const std::string &text) {
    if (!O.out)
      return;
    endLine();
    std::fprintf(O.out, "%s\n", text.c_str());
    std::fflush(O.out);
  }

private:
  ProgressOptions O;
  uint64_t Updates = 0;
  bool Dirty = false;
};

} // namespace ktune::tuner

#endif
