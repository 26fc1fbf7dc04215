//===- ktune/Support/Statistics.h - Medians ---------------------*- C++ -*-===//
#ifndef KTUNE_SUPPORT_STATISTICS_H
#define KTUNE_SUPPORT_STATISTICS_H

#include <algorithm>
#include <vector>

namespace ktune {

/// The median of `values` (the mean of the middle two for an even count);
/// 0 for none.
inline double median(std::vector<double> values) {
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

} // namespace ktune

#endif
