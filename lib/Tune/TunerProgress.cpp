//===- TunerProgress.cpp - The tuner's progress line ----------------------===//
#include "TunerProgress.h"

#include <cstdio>

namespace ktune::tuner {

double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

std::string durationText(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0)
    return "?";
  long s = std::lround(seconds);
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof(buf), "%ldh%02ldm", s / 3600, (s % 3600) / 60);
  else if (s >= 60)
    std::snprintf(buf, sizeof(buf), "%ldm%02lds", s / 60, s % 60);
  else
    std::snprintf(buf, sizeof(buf), "%lds", s);
  return buf;
}

void Progress::update(const ProgressLine &p, bool force) {
  if (!O.out)
    return;
  ++Updates;
  if (!O.tty && !force && (O.every == 0 || p.spent % O.every != 0))
    return;
  char best[96] = "best -";
  if (p.bestUs) {
    if (p.defaultUs && *p.bestUs > 0)
      std::snprintf(best, sizeof(best), "best %.3f us (%.2fx default)",
                    *p.bestUs, *p.defaultUs / *p.bestUs);
    else
      std::snprintf(best, sizeof(best), "best %.3f us", *p.bestUs);
  }
  char line[512];
  std::snprintf(line, sizeof(line),
                "[shape %zu/%zu %s] %llu/%llu evaluations, %s%sETA %s",
                p.shapeIndex + 1, p.shapeCount, p.shape.c_str(),
                static_cast<unsigned long long>(p.spent),
                static_cast<unsigned long long>(p.budget), p.timed ? best : "",
                p.timed ? ", " : "", durationText(p.etaSeconds).c_str());
  std::string text = line;
  if (O.activity)
    text += "; " + O.activity();
  if (O.tty) {
    std::fprintf(O.out, "\r\033[K%s", text.c_str());
    Dirty = true;
  } else {
    std::fprintf(O.out, "%s\n", text.c_str());
  }
  std::fflush(O.out);
}

} // namespace ktune::tuner
