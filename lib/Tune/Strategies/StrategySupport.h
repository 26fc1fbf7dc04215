//===- StrategySupport.h - Pieces shared by the strategies -----*- C++ -*-===//
#ifndef KTUNE_LIB_TUNE_STRATEGIES_STRATEGYSUPPORT_H
#define KTUNE_LIB_TUNE_STRATEGIES_STRATEGYSUPPORT_H

#include "ktune/Support/Try.h"
#include "ktune/Tune/Strategy.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <random>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace ktune {

struct PointHash {
  size_t operator()(const Point &p) const {
    uint64_t h = 1469598103934665603ull;
    for (uint32_t v : p) {
      h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
      h *= 1099511628211ull;
    }
    return static_cast<size_t>(h);
  }
};
using PointSet = std::unordered_set<Point, PointHash>;
template <class T> using PointMap = std::unordered_map<Point, T, PointHash>;

/// Valid points are listed when there are at most this many cartesian points
/// (and at most MaxListedValid valid ones); larger spaces are only sampled.
inline constexpr uint64_t MaxListedCartesian = uint64_t(1) << 22;
inline constexpr uint64_t MaxListedValid = uint64_t(1) << 20;

/// Every valid point, when the space is small enough to list.
std::optional<std::vector<Point>> listValidPoints(const SearchSpace &space);

/// Draws valid points the objective has not seen, uniformly, and reports
/// when none are left. Small spaces are listed once and drawn without
/// replacement; large ones by rejection, giving up after many seen draws in
/// a row (a space that large is never exhausted by a tuning budget).
class UnseenSampler {
public:
  explicit UnseenSampler(const SearchSpace &space);
  std::optional<Point> next(const Objective &objective, std::mt19937_64 &rng,
                            const PointSet *exclude = nullptr);
  /// True once next() has found nothing left.
  bool exhausted() const { return Exhausted; }

private:
  const SearchSpace &Space;
  std::optional<std::vector<Point>> Pool;
  bool Exhausted = false;
};

/// Appends points from `next()` to `batch` until it holds `size`, each
/// recorded in `claimed` (which `next` avoids, so the batch is distinct);
/// stops early when `next` has none left.
template <class Next>
void fillDistinct(std::vector<Point> &batch, size_t size, PointSet &claimed,
                  Next next) {
  while (batch.size() < size) {
    std::optional<Point> p = next();
    if (!p)
      break;
    claimed.insert(*p);
    batch.push_back(std::move(*p));
  }
}

/// fillDistinct with unseen points drawn by `sampler`.
inline void fillUnseen(std::vector<Point> &batch, size_t size, PointSet &drawn,
                       UnseenSampler &sampler, const Objective &objective,
                       std::mt19937_64 &rng) {
  fillDistinct(batch, size, drawn,
               [&] { return sampler.next(objective, rng, &drawn); });
}

/// Evaluates `p` unless it was seen; returns its (possibly cached) outcome.
/// Strategies use this so that a point is never evaluated twice.
std::optional<double> evaluateOnce(Objective &objective, const Point &p);

/// What the sampling strategies share: a name, their options (read by
/// OptionReader in their make* function) and a sampler of unseen points,
/// made afresh for each run.
template <class Options> class SamplingStrategy : public Strategy {
public:
  SamplingStrategy(std::string name, Options options)
      : Name(std::move(name)), O(std::move(options)) {}
  std::string name() const override { return Name; }
  void run(const SearchSpace &space, Objective &objective,
           std::mt19937_64 &rng) final {
    UnseenSampler sampler(space);
    search(space, objective, rng, sampler);
  }
  /// One run, until the objective is exhausted or the space is covered.
  virtual void search(const SearchSpace &space, Objective &objective,
                      std::mt19937_64 &rng, UnseenSampler &sampler) = 0;

private:
  std::string Name;

protected:
  const Options O;
};

/// The options of a strategy that takes none.
struct NoOptions {};

/// A local strategy: one walk on a single device; with several devices, a
/// chain per device, the chains' proposals measured as one batch.
template <class Options>
class WalkingStrategy : public SamplingStrategy<Options> {
public:
  using SamplingStrategy<Options>::SamplingStrategy;
  void search(const SearchSpace &space, Objective &objective,
              std::mt19937_64 &rng, UnseenSampler &sampler) final {
    if (objective.parallelism() > 1)
      return walkInChains(space, objective, rng, sampler);
    walk(space, objective, rng, sampler);
  }

protected:
  virtual void walk(const SearchSpace &space, Objective &objective,
                    std::mt19937_64 &rng, UnseenSampler &sampler) = 0;
  virtual void walkInChains(const SearchSpace &space, Objective &objective,
                            std::mt19937_64 &rng, UnseenSampler &sampler) = 0;
};

/// Reads strategy options: each known key into the member that holds it,
/// whose value is the default; unknown keys are errors (a typo must not
/// silently fall back to a default).
class OptionReader {
public:
  OptionReader(const nlohmann::json &options, std::string strategy)
      : Options(options), Strategy(std::move(strategy)) {}
  Status number(const std::string &key, double &value, double min, double max);
  Status integer(const std::string &key, int64_t &value, int64_t min,
                 int64_t max);
  Status boolean(const std::string &key, bool &value);
  Status choice(const std::string &key, std::string &value,
                const std::vector<std::string> &allowed);
  /// Errors on any option that no call above asked about.
  Status finish() const;

private:
  const nlohmann::json &Options;
  std::string Strategy;
  std::vector<std::string> Known;
};

/// The factory of a strategy that takes no options: any option is an error.
template <class S>
Expected<std::unique_ptr<Strategy>>
makeWithoutOptions(const nlohmann::json &options, const std::string &name) {
  OptionReader reader(options, name);
  if (auto s = reader.finish(); !s)
    return std::unexpected(s.error());
  return std::make_unique<S>();
}

/// Neighbours used by the local strategies: all single-parameter changes to
/// any value (Hamming distance 1). When a point has none (every such change
/// breaks a constraint), two-parameter changes are listed instead, so a
/// tightly constrained space still has a connected neighbourhood.
std::vector<Point> hammingNeighbours(const SearchSpace &space, const Point &p);

/// Makes a strategy from its options (a row of Strategies.def).
using StrategyMaker =
    Expected<std::unique_ptr<Strategy>> (*)(const nlohmann::json &options);

/// Each strategy's factory, declared from its row in Strategies.def.
#define KTUNE_STRATEGY(NAME, FACTORY, SUMMARY, ...)                            \
  Expected<std::unique_ptr<Strategy>> FACTORY(const nlohmann::json &options);
#include "Strategies.def"

} // namespace ktune

#endif
