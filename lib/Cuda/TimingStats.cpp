#include "ktune/Cuda/TimingStats.h"

#include <algorithm>
#include <cmath>

namespace ktune {

static double quantile(const std::vector<double> &sorted, double q) {
  if (sorted.empty())
    return 0;
  double pos = q * static_cast<double>(sorted.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, sorted.size() - 1);
  double frac = pos - static_cast<double>(lo);
  return sorted[lo] + frac * (sorted[hi] - sorted[lo]);
}

SampleSummary summarize(std::vector<double> samples) {
  SampleSummary s;
  std::sort(samples.begin(), samples.end());
  s.count = samples.size();
  s.median = quantile(samples, 0.5);
  s.q25 = quantile(samples, 0.25);
  s.q75 = quantile(samples, 0.75);
  return s;
}

bool StoppingRule::done(const std::vector<double> &samples,
                        double elapsedSeconds) const {
  if (samples.size() >= maxReps || elapsedSeconds >= maxSeconds)
    return true;
  if (samples.size() < minReps)
    return false;
  SampleSummary s = summarize(samples);
  if (s.relativeIqr() <= targetRelIqr)
    return true;
  // Launches may vary more than the target while their median is already
  // known that well: stop when the median's 95 % confidence interval
  // (median +- 1.57 IQR / sqrt(n), McGill, Tukey and Larsen 1978) is within
  // the target.
  return 1.57 * s.iqr() / std::sqrt(static_cast<double>(s.count)) <=
         targetRelIqr * s.median;
}

} // namespace ktune
