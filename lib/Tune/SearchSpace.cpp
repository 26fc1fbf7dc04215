//===- SearchSpace.cpp - Domains x constraints, lazily --------------------===//
//
// Constraints are bound once to value slots (parameters first, then fixed
// names) and each is checked as soon as the last parameter it names has a
// value, so lexicographic enumeration prunes whole subtrees and a 10^9-point
// space is only as expensive as the part of it that is walked.
//
//===----------------------------------------------------------------------===//

#include "ktune/Tune/SearchSpace.h"

#include "ktune/Support/Limits.h"

#include <algorithm>
#include <limits>
#include <mutex>
#include <set>

namespace ktune {

namespace {

/// Cartesian spaces up to this size may be enumerated once to sample
/// uniformly when rejection sampling fails (tightly constrained spaces).
constexpr uint64_t MaxEnumeratedCartesian = uint64_t(1) << 24;
/// Most valid points kept in that cache (as lexicographic ranks).
constexpr uint64_t MaxCachedValid = uint64_t(1) << 22;

} // namespace

struct SearchSpace::Impl {
  std::vector<SpaceParam> params;
  std::vector<std::vector<int64_t>> values; // domain values by index
  std::vector<std::string> constraintTexts;
  std::vector<expr::BoundExpr> constraints;
  /// Constraints to check once parameters 0..d have values, by d.
  std::vector<std::vector<size_t>> checksAtDepth;
  std::vector<int64_t> fixedValues; // slots after the parameters
  uint64_t cartesian = 0;

  // Lazily built list of valid points (ranks) for tightly constrained
  // spaces; built at most once, by whichever thread needs it first.
  mutable std::once_flag validOnce;
  mutable std::vector<uint64_t> validRanks;
  mutable bool validRanksComplete = false;

  std::vector<int64_t> slotsOf(const Point &p) const {
    std::vector<int64_t> slots(params.size() + fixedValues.size());
    for (size_t k = 0; k < params.size(); ++k)
      slots[k] = values[k][p[k]];
    std::copy(fixedValues.begin(), fixedValues.end(),
              slots.begin() + params.size());
    return slots;
  }

  bool inDomain(const Point &p) const {
    if (p.size() != params.size())
      return false;
    for (size_t k = 0; k < p.size(); ++k)
      if (p[k] >= values[k].size())
        return false;
    return true;
  }

  std::optional<size_t> firstViolation(const Point &p) const {
    auto slots = slotsOf(p);
    for (size_t c = 0; c < constraints.size(); ++c)
      if (!constraints[c].holds(slots))
        return c;
    return std::nullopt;
  }

  /// Checks the constraints that become decidable at `depth`.
  bool holdsAtDepth(size_t depth, const std::vector<int64_t> &slots) const {
    for (size_t c : checksAtDepth[depth])
      if (!constraints[c].holds(slots))
        return false;
    return true;
  }

  uint64_t rankOf(const Point &p) const {
    uint64_t r = 0;
    for (size_t k = 0; k < p.size(); ++k)
      r = r * values[k].size() + p[k];
    return r;
  }

  Point unrank(uint64_t r) const {
    Point p(params.size());
    for (size_t k = params.size(); k-- > 0;) {
      p[k] = static_cast<uint32_t>(r % values[k].size());
      r /= values[k].size();
    }
    return p;
  }

  /// Depth-first walk in lexicographic order with pruning. `order(d)` gives
  /// the index sequence tried at depth d. Stops when visit returns false or
  /// after `nodeBudget` partial assignments (0 = unlimited); returns false
  /// when it stopped early.
  template <class Visit>
  bool walk(const Visit &visit, uint64_t nodeBudget = 0) const {
    size_t n = params.size();
    if (n == 0) {
      std::vector<int64_t> slots(fixedValues);
      for (const auto &c : constraints)
        if (!c.holds(slots))
          return true;
      return visit(Point{});
    }
    Point p(n, 0);
    std::vector<int64_t> slots(n + fixedValues.size(), 0);
    std::copy(fixedValues.begin(), fixedValues.end(), slots.begin() + n);
    uint64_t nodes = 0;
    size_t depth = 0;
    p[0] = 0;
    while (true) {
      if (nodeBudget && ++nodes > nodeBudget)
        return false;
      slots[depth] = values[depth][p[depth]];
      bool ok = holdsAtDepth(depth, slots);
      if (ok && depth + 1 == n) {
        if (!visit(p))
          return false;
      } else if (ok) {
        ++depth;
        p[depth] = 0;
        continue;
      }
      // Advance to the next sibling, climbing up when a level is done.
      while (++p[depth] == values[depth].size()) {
        if (depth == 0)
          return true;
        --depth;
      }
    }
  }

  void buildValidCache() const {
    std::call_once(validOnce, [&] {
      if (cartesian > MaxEnumeratedCartesian)
        return;
      validRanksComplete = walk([&](const Point &p) {
        if (validRanks.size() >= MaxCachedValid)
          return false;
        validRanks.push_back(rankOf(p));
        return true;
      });
      if (!validRanksComplete)
        validRanks.clear();
    });
  }

  /// A valid point by depth-first search from random starting values at
  /// each level (not uniform), or nullopt when none is found in budget.
  std::optional<Point> randomDescent(std::mt19937_64 &rng,
                                     uint64_t nodeBudget) const {
    size_t n = params.size();
    std::vector<uint32_t> offset(n), tried(n, 0);
    Point p(n, 0);
    std::vector<int64_t> slots(n + fixedValues.size(), 0);
    std::copy(fixedValues.begin(), fixedValues.end(), slots.begin() + n);
    auto startLevel = [&](size_t d) {
      offset[d] = std::uniform_int_distribution<uint32_t>(
          0, static_cast<uint32_t>(values[d].size() - 1))(rng);
      tried[d] = 0;
    };
    if (n == 0)
      return std::nullopt;
    size_t depth = 0;
    startLevel(0);
    for (uint64_t nodes = 0; nodes < nodeBudget; ++nodes) {
      uint32_t size = static_cast<uint32_t>(values[depth].size());
      p[depth] = (offset[depth] + tried[depth]) % size;
      slots[depth] = values[depth][p[depth]];
      bool ok = holdsAtDepth(depth, slots);
      if (ok && depth + 1 == n)
        return p;
      if (ok) {
        ++depth;
        startLevel(depth);
        continue;
      }
      while (++tried[depth] == values[depth].size()) {
        if (depth == 0)
          return std::nullopt;
        --depth;
      }
    }
    return std::nullopt;
  }
};

Expected<SearchSpace> SearchSpace::create(
    std::vector<SpaceParam> params, const std::vector<std::string> &constraints,
    expr::Dialect dialect, const std::map<std::string, int64_t> &fixed) {
  auto impl = std::make_shared<Impl>();
  std::set<std::string> names;
  uint64_t cartesian = 1;
  // The domains are held enumerated: bound their values together, not only
  // each one (a range costs a few bytes of input and 8 per value here).
  uint64_t totalValues = 0;
  for (size_t k = 0; k < params.size(); ++k) {
    const SpaceParam &param = params[k];
    std::string where = "params[" + std::to_string(k) + "]";
    if (param.name.empty())
      return makeError("parameter has no name", where);
    if (!names.insert(param.name).second)
      return makeError("duplicate parameter '" + param.name + "'", where);
    if (fixed.count(param.name))
      return makeError(
          "parameter '" + param.name + "' is also given a fixed value", where);
    uint64_t size = param.domain.size();
    if (size == 0)
      return makeError("parameter '" + param.name + "' has no values", where);
    if (size > Domain::MaxSize)
      return makeError("parameter '" + param.name + "' has " +
                           std::to_string(size) + " values; at most " +
                           std::to_string(Domain::MaxSize) + " are supported",
                       where);
    totalValues += size;
    if (totalValues > limits::MaxSpaceValues)
      return makeError("the parameters' domains hold more than " +
                           std::to_string(limits::MaxSpaceValues) +
                           " values together (docs/limits.md)",
                       where);
    std::vector<int64_t> values = param.domain.enumerate();
    std::set<int64_t> distinct(values.begin(), values.end());
    if (distinct.size() != values.size())
      return makeError("parameter '" + param.name + "' repeats a value", where);
    impl->values.push_back(std::move(values));
    cartesian = cartesian > std::numeric_limits<uint64_t>::max() / size
                    ? std::numeric_limits<uint64_t>::max()
                    : cartesian * size;
  }
  impl->cartesian = cartesian;

  std::vector<std::string> slots;
  for (const auto &param : params)
    slots.push_back(param.name);
  for (const auto &[name, value] : fixed) {
    slots.push_back(name);
    impl->fixedValues.push_back(value);
  }

  impl->checksAtDepth.assign(std::max<size_t>(params.size(), 1), {});
  for (size_t c = 0; c < constraints.size(); ++c) {
    std::string where = "constraints[" + std::to_string(c) + "]";
    auto parsed = expr::Expr::parse(constraints[c], dialect);
    if (!parsed)
      return makeError("'" + constraints[c] + "': " + parsed.error().message,
                       where);
    auto bound = parsed->bind(slots);
    if (!bound)
      return makeError("'" + constraints[c] + "': " + bound.error().message,
                       where);
    size_t depth = 0;
    for (const auto &name : parsed->names()) {
      auto it = std::find(slots.begin(), slots.end(), name);
      size_t slot = static_cast<size_t>(it - slots.begin());
      if (slot < params.size())
        depth = std::max(depth, slot);
    }
    impl->checksAtDepth[depth].push_back(c);
    impl->constraintTexts.push_back(constraints[c]);
    impl->constraints.push_back(std::move(*bound));
  }
  impl->params = std::move(params);

  SearchSpace space;
  space.I = std::move(impl);
  return space;
}

const std::vector<SpaceParam> &SearchSpace::params() const { return I->params; }

size_t SearchSpace::dims() const { return I->params.size(); }

uint64_t SearchSpace::cartesianSize() const { return I->cartesian; }

bool SearchSpace::isValid(const Point &p) const {
  return I->inDomain(p) && !I->firstViolation(p);
}

std::optional<std::string>
SearchSpace::violatedConstraint(const Point &p) const {
  if (!I->inDomain(p))
    return std::string("<index outside a parameter's domain>");
  if (auto c = I->firstViolation(p))
    return I->constraintTexts[*c];
  return std::nullopt;
}

Configuration SearchSpace::toConfig(const Point &p) const {
  Configuration config;
  for (size_t k = 0; k < I->params.size() && k < p.size(); ++k)
    config[I->params[k].name] = I->values[k].at(p[k]);
  return config;
}

std::optional<Point>
SearchSpace::fromConfig(const Configuration &config) const {
  Point p(I->params.size());
  for (size_t k = 0; k < I->params.size(); ++k) {
    auto it = config.find(I->params[k].name);
    if (it == config.end())
      return std::nullopt;
    auto index = I->params[k].domain.indexOf(it->second);
    if (!index)
      return std::nullopt;
    p[k] = static_cast<uint32_t>(*index);
  }
  return p;
}

std::optional<Point> SearchSpace::defaultPoint() const {
  Configuration config;
  for (const auto &param : I->params) {
    if (!param.defaultValue)
      return std::nullopt;
    config[param.name] = *param.defaultValue;
  }
  return fromConfig(config);
}

std::optional<Point> SearchSpace::randomValid(std::mt19937_64 &rng,
                                              int maxTries) const {
  size_t n = I->params.size();
  Point p(n);
  for (int t = 0; t < maxTries; ++t) {
    for (size_t k = 0; k < n; ++k)
      p[k] = std::uniform_int_distribution<uint32_t>(
          0, static_cast<uint32_t>(I->values[k].size() - 1))(rng);
    if (!I->firstViolation(p))
      return p;
  }
  // Tightly constrained: sample uniformly from the enumerated valid points
  // when the space is small enough to enumerate once.
  I->buildValidCache();
  if (I->validRanksComplete) {
    if (I->validRanks.empty())
      return std::nullopt;
    uint64_t pick = std::uniform_int_distribution<uint64_t>(
        0, I->validRanks.size() - 1)(rng);
    return I->unrank(I->validRanks[pick]);
  }
  // Too large to enumerate: find a valid point by randomised descent, then
  // mix by a random walk over single-parameter changes (a symmetric
  // proposal, so the walk tends to the uniform distribution over its
  // connected component).
  auto start = I->randomDescent(rng, uint64_t(1) << 22);
  if (!start)
    return std::nullopt;
  Point current = *start;
  for (int step = 0; step < 64 * static_cast<int>(n); ++step) {
    Point next = current;
    size_t k = std::uniform_int_distribution<size_t>(0, n - 1)(rng);
    next[k] = std::uniform_int_distribution<uint32_t>(
        0, static_cast<uint32_t>(I->values[k].size() - 1))(rng);
    if (!I->firstViolation(next))
      current = std::move(next);
  }
  return current;
}

std::vector<Point> SearchSpace::neighbours(const Point &p,
                                           bool anyValue) const {
  std::vector<Point> out;
  if (!I->inDomain(p))
    return out;
  Point q = p;
  for (size_t k = 0; k < p.size(); ++k) {
    uint32_t size = static_cast<uint32_t>(I->values[k].size());
    auto consider = [&](uint32_t index) {
      q[k] = index;
      if (!I->firstViolation(q))
        out.push_back(q);
    };
    if (anyValue) {
      for (uint32_t v = 0; v < size; ++v)
        if (v != p[k])
          consider(v);
    } else {
      if (p[k] > 0)
        consider(p[k] - 1);
      if (p[k] + 1 < size)
        consider(p[k] + 1);
    }
    q[k] = p[k];
  }
  return out;
}

void SearchSpace::forEachValid(
    const std::function<bool(const Point &)> &visit) const {
  I->walk(visit);
}

std::optional<uint64_t> SearchSpace::validCount(uint64_t limit) const {
  if (I->cartesian > limit)
    return std::nullopt;
  uint64_t count = 0;
  I->walk([&](const Point &) {
    ++count;
    return true;
  });
  return count;
}

} // namespace ktune
