//===- ktune/Tune/SearchSpace.h - Domains x constraints, lazily -*- C++ -*-===//
//
// The space is the cartesian product of the parameters' domains, filtered by
// constraints. It is never materialised: a point is a vector of indices into
// the domains, validity is checked on demand, and enumeration is lazy, so a
// space of 10^9 points costs nothing until it is walked.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_TUNE_SEARCHSPACE_H
#define KTUNE_TUNE_SEARCHSPACE_H

#include "ktune/Expr/Expr.h"
#include "ktune/Plan/Domain.h"
#include "ktune/Tune/Evaluator.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace ktune {

struct SpaceParam {
  std::string name;
  Domain domain;
  std::optional<int64_t> defaultValue;
};

/// Indices into each parameter's domain, in SearchSpace::params() order.
using Point = std::vector<uint32_t>;

class SearchSpace {
public:
  /// Constraints may name parameters and `fixed` names (problem dimensions,
  /// hardware limits); anything else is an error naming the constraint.
  static Expected<SearchSpace>
  create(std::vector<SpaceParam> params,
         const std::vector<std::string> &constraints,
         expr::Dialect dialect = expr::Dialect::Ktune,
         const std::map<std::string, int64_t> &fixed = {});

  const std::vector<SpaceParam> &params() const;
  size_t dims() const;
  /// Product of domain sizes, saturating at UINT64_MAX.
  uint64_t cartesianSize() const;

  bool isValid(const Point &p) const;
  /// The first constraint that fails, as written; nullopt when valid.
  std::optional<std::string> violatedConstraint(const Point &p) const;

  Configuration toConfig(const Point &p) const;
  /// nullopt when a value is not in its domain or a parameter is missing.
  std::optional<Point> fromConfig(const Configuration &config) const;
  /// The point of the parameters' default values, when all have one.
  std::optional<Point> defaultPoint() const;

  /// Uniform over valid points by rejection (tries up to maxTries draws).
  std::optional<Point> randomValid(std::mt19937_64 &rng,
                                   int maxTries = 10000) const;
  /// Valid points differing in one parameter by one index step (adjacent
  /// values), or — with anyValue — by any value of one parameter.
  std::vector<Point> neighbours(const Point &p, bool anyValue = false) const;

  /// Calls `visit` on every valid point in lexicographic order until it
  /// returns false.
  void forEachValid(const std::function<bool(const Point &)> &visit) const;
  /// Counts valid points if there are at most `limit` cartesian points.
  std::optional<uint64_t> validCount(uint64_t limit = 1u << 24) const;

private:
  struct Impl;
  std::shared_ptr<const Impl> I;
};

} // namespace ktune

#endif
