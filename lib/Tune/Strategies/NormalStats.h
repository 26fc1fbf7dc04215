//===- NormalStats.h - The normal distribution in Bayes ---------*- C++ -*-===//
//
// What Bayes.cpp needs of the standard normal distribution: its density and
// distribution function, the expected improvement of a prediction, and the
// quantiles that turn times into Gaussian ranks.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_LIB_TUNE_STRATEGIES_NORMALSTATS_H
#define KTUNE_LIB_TUNE_STRATEGIES_NORMALSTATS_H

#include <Eigen/Dense>

namespace ktune {

double normalPdf(double z);
double normalCdf(double z);

/// log E[max(best - Y, 0)] for Y ~ N(mean, sd^2), accurate far in the
/// tail where the plain formula underflows to 0 for every candidate and the
/// choice among them would be arbitrary.
double logExpectedImprovement(double best, double mean, double sd);

/// The standard normal quantile (Acklam's approximation, then one Newton
/// step: ~1e-12 relative error).
double normalQuantile(double p);

/// Gaussian copula of a sample: each value replaced by the normal quantile
/// of its mid-rank (ties share a rank). Only the order of times matters
/// then, so a few very slow or failed points cannot flatten the
/// differences among the fast ones, which are the ones that matter.
Eigen::VectorXd gaussianRanks(const Eigen::VectorXd &y);

} // namespace ktune

#endif
