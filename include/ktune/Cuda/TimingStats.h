//===- ktune/Cuda/TimingStats.h - Medians, IQRs, when to stop ---*- C++ -*-===//
#ifndef KTUNE_CUDA_TIMINGSTATS_H
#define KTUNE_CUDA_TIMINGSTATS_H

#include <cstddef>
#include <vector>

namespace ktune {

struct SampleSummary {
  double median = 0, q25 = 0, q75 = 0;
  double iqr() const { return q75 - q25; }
  double relativeIqr() const { return median > 0 ? iqr() / median : 0; }
  size_t count = 0;
};

/// Quartiles by linear interpolation between order statistics.
SampleSummary summarize(std::vector<double> samples);

/// Repeat until the median is stable, or maxReps samples, or maxSeconds
/// spent. Stable (after at least minReps samples): the relative IQR is at
/// most targetRelIqr, or the median's 95 % confidence interval
/// (1.57 IQR / sqrt(n)) is within targetRelIqr of it.
struct StoppingRule {
  size_t minReps = 10;
  size_t maxReps = 2000;
  double maxSeconds = 2.0;
  double targetRelIqr = 0.02;

  bool done(const std::vector<double> &samples, double elapsedSeconds) const;
};

} // namespace ktune

#endif
