//===- NormalStats.cpp - The normal distribution for Bayesian search ------===//
#include "NormalStats.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace ktune {

double normalPdf(double z) {
  return std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI);
}
double normalCdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

double logExpectedImprovement(double best, double mean, double sd) {
  double z = (best - mean) / sd;
  if (z > -6.0)
    return std::log(sd) +
           std::log(std::max(z * normalCdf(z) + normalPdf(z), 1e-300));
  // z Phi(z) + phi(z) = phi(z) (1/z^2 - 3/z^4 + ...) for z -> -inf.
  double z2 = z * z;
  return std::log(sd) - 0.5 * z2 - 0.5 * std::log(2 * M_PI) +
         std::log(1.0 / z2 - 3.0 / (z2 * z2));
}

double normalQuantile(double p) {
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                             -2.759285104469687e+02, 1.383577518672690e+02,
                             -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                             -1.556989798598866e+02, 6.680131188771972e+01,
                             -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                             -2.400758277161838e+00, -2.549732539343734e+00,
                             4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                             2.445134137142996e+00, 3.754408661907416e+00};
  double x;
  if (p < 0.02425) {
    double q = std::sqrt(-2 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p > 1 - 0.02425) {
    double q = std::sqrt(-2 * std::log(1 - p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else {
    double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) *
        q / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  }
  double e = normalCdf(x) - p;
  return x - e * std::sqrt(2 * M_PI) * std::exp(0.5 * x * x);
}

Eigen::VectorXd gaussianRanks(const Eigen::VectorXd &y) {
  Eigen::Index n = y.size();
  std::vector<Eigen::Index> order(static_cast<size_t>(n));
  for (Eigen::Index i = 0; i < n; ++i)
    order[static_cast<size_t>(i)] = i;
  std::sort(order.begin(), order.end(),
            [&](Eigen::Index a, Eigen::Index b) { return y(a) < y(b); });
  Eigen::VectorXd out(n);
  for (Eigen::Index lo = 0; lo < n;) {
    Eigen::Index hi = lo;
    while (hi + 1 < n && y(order[static_cast<size_t>(hi + 1)]) ==
                             y(order[static_cast<size_t>(lo)]))
      ++hi;
    double rank = 0.5 * static_cast<double>(lo + hi);
    double z = normalQuantile((rank + 0.5) / static_cast<double>(n));
    for (Eigen::Index k = lo; k <= hi; ++k)
      out(order[static_cast<size_t>(k)]) = z;
    lo = hi + 1;
  }
  return out;
}

} // namespace ktune
