//===- IteratedLocalSearch.cpp - Local search, kicks and restarts ---------===//
//
// First-improvement hill climbing over Hamming neighbours (unseen ones
// evaluated in random order; seen ones read from the cache for free). At a
// local optimum the search kicks the best point found by a few random
// neighbour moves and climbs again; after `restart_after` kicks without a
// new best it restarts from a random unseen point, so it never stalls in
// one basin and ends only when the budget or the space runs out.
//
//===----------------------------------------------------------------------===//

#include "StrategySupport.h"

#include "ktune/Support/Try.h"

#include <algorithm>

namespace ktune {

namespace {

struct IlsOptions {
  int64_t kickMoves = 2;
  int64_t restartAfter = 3;
  bool adjacentFirst = false;
};

class IteratedLocalSearch : public SamplingStrategy<IlsOptions> {
public:
  using SamplingStrategy::SamplingStrategy;
  void search(const SearchSpace &space, Objective &objective,
              std::mt19937_64 &rng, UnseenSampler &sampler) override {
    std::optional<Point> start;
    if (auto d = space.defaultPoint(); d && space.isValid(*d))
      start = d;
    else
      start = sampler.next(objective, rng);
    if (!start)
      return;
    std::optional<Point> best;
    std::optional<double> bestTime;
    int64_t kicksWithoutProgress = 0;
    Point from = *start;
    while (!objective.exhausted()) {
      auto [local, localTime] = climb(space, objective, rng, from);
      if (localTime && (!bestTime || *localTime < *bestTime)) {
        best = local;
        bestTime = localTime;
        kicksWithoutProgress = 0;
      } else {
        ++kicksWithoutProgress;
      }
      if (objective.exhausted())
        return;
      if (!best || kicksWithoutProgress >= O.restartAfter) {
        auto p = sampler.next(objective, rng);
        if (!p)
          return;
        from = *p;
        kicksWithoutProgress = 0;
        continue;
      }
      // Kick: a short random walk from the best point, ending unseen when
      // possible so the climb starts with new information.
      Point p = *best;
      for (int64_t m = 0; m < O.kickMoves; ++m) {
        auto around = hammingNeighbours(space, p);
        if (around.empty())
          break;
        p = around[std::uniform_int_distribution<size_t>(0, around.size() -
                                                                1)(rng)];
      }
      if (objective.seen(p)) {
        auto around = hammingNeighbours(space, p);
        std::erase_if(around,
                      [&](const Point &q) { return objective.seen(q); });
        if (!around.empty())
          p = around[std::uniform_int_distribution<size_t>(0, around.size() -
                                                                  1)(rng)];
      }
      from = p;
    }
  }

private:
  /// Climbs from `p` to a local optimum (or until the budget ends).
  std::pair<Point, std::optional<double>> climb(const SearchSpace &space,
                                                Objective &objective,
                                                std::mt19937_64 &rng, Point p) {
    std::optional<double> time = evaluateOnce(objective, p);
    while (!objective.exhausted()) {
      bool moved = false;
      for (bool wide : {false, true}) {
        if (!wide && !O.adjacentFirst)
          continue;
        auto around = wide ? hammingNeighbours(space, p) : space.neighbours(p);
        std::shuffle(around.begin(), around.end(), rng);
        // Seen neighbours first: they cost nothing.
        std::stable_partition(
            around.begin(), around.end(),
            [&](const Point &q) { return objective.seen(q); });
        for (const auto &q : around) {
          if (objective.exhausted())
            return {p, time};
          auto t = evaluateOnce(objective, q);
          if (t && (!time || *t < *time)) {
            p = q;
            time = t;
            moved = true;
            break;
          }
        }
        if (moved)
          break;
      }
      if (!moved)
        return {p, time};
    }
    return {p, time};
  }
};

} // namespace

Expected<std::unique_ptr<Strategy>>
makeIteratedLocalSearch(const nlohmann::json &o) {
  OptionReader r(o, "ils");
  IlsOptions opts;
  KTUNE_TRY_ASSIGN(opts.kickMoves,
                   r.integer("kick_moves", opts.kickMoves, 1, 100));
  KTUNE_TRY_ASSIGN(opts.restartAfter,
                   r.integer("restart_after", opts.restartAfter, 1, 1000000));
  KTUNE_TRY_ASSIGN(opts.adjacentFirst,
                   r.boolean("adjacent_first", opts.adjacentFirst));
  KTUNE_TRY(r.finish());
  return std::make_unique<IteratedLocalSearch>("ils", opts);
}

} // namespace ktune
