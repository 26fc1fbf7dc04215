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

class IteratedLocalSearch : public WalkingStrategy<IlsOptions> {
public:
  using WalkingStrategy::WalkingStrategy;
  void walk(const SearchSpace &space, Objective &objective,
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

  /// One climb of the parallel version, as a state machine: propose() the
  /// next point to measure, observe() its outcome.
  struct Chain {
    std::optional<Point> start; // to climb from (measured first if unseen)
    bool startPending = false;  // the start is in the batch
    Point at;
    std::optional<double> time;
    std::vector<Point> todo; // neighbours of `at` left to try, next last
    std::optional<Point> best;
    std::optional<double> bestTime;
    int64_t kicksWithoutProgress = 0;
  };

  void aim(const SearchSpace &space, Objective &objective, std::mt19937_64 &rng,
           Chain &c) {
    auto around = hammingNeighbours(space, c.at);
    std::shuffle(around.begin(), around.end(), rng);
    // Seen neighbours first (they cost nothing); popped from the back.
    std::stable_partition(around.begin(), around.end(),
                          [&](const Point &q) { return !objective.seen(q); });
    c.todo = std::move(around);
  }

  /// Where to climb next from a local optimum: a kick from the chain's
  /// best point, or a random restart.
  std::optional<Point> restartPoint(const SearchSpace &space,
                                    Objective &objective, std::mt19937_64 &rng,
                                    UnseenSampler &sampler, Chain &c,
                                    const PointSet &claimed) {
    if (c.time && (!c.bestTime || *c.time < *c.bestTime)) {
      c.best = c.at;
      c.bestTime = c.time;
      c.kicksWithoutProgress = 0;
    } else {
      ++c.kicksWithoutProgress;
    }
    if (!c.best || c.kicksWithoutProgress >= O.restartAfter) {
      c.kicksWithoutProgress = 0;
      return sampler.next(objective, rng, &claimed);
    }
    Point p = *c.best;
    for (int64_t m = 0; m < O.kickMoves; ++m) {
      auto around = hammingNeighbours(space, p);
      if (around.empty())
        break;
      p = around[std::uniform_int_distribution<size_t>(0,
                                                       around.size() - 1)(rng)];
    }
    if (objective.seen(p) || claimed.count(p)) {
      auto around = hammingNeighbours(space, p);
      std::erase_if(around, [&](const Point &q) {
        return objective.seen(q) || claimed.count(q);
      });
      if (!around.empty())
        p = around[std::uniform_int_distribution<size_t>(0, around.size() -
                                                                1)(rng)];
    }
    return p;
  }

  std::optional<Point> propose(const SearchSpace &space, Objective &objective,
                               std::mt19937_64 &rng, UnseenSampler &sampler,
                               Chain &c, const PointSet &claimed) {
    for (int guard = 0; guard < 1000; ++guard) {
      if (c.start) {
        Point s = *c.start;
        if (!objective.seen(s)) {
          if (claimed.count(s)) {
            c.start = sampler.next(objective, rng, &claimed);
            continue;
          }
          c.startPending = true;
          return s;
        }
        c.at = s;
        c.time = objective.cached(s);
        c.start.reset();
        aim(space, objective, rng, c);
        continue;
      }
      while (!c.todo.empty()) {
        Point q = std::move(c.todo.back());
        c.todo.pop_back();
        if (objective.seen(q)) {
          auto t = objective.cached(q);
          if (t && (!c.time || *t < *c.time)) {
            c.at = q;
            c.time = t;
            aim(space, objective, rng, c);
          }
          continue;
        }
        if (claimed.count(q))
          continue;
        return q;
      }
      // A local optimum: kick or restart.
      c.start = restartPoint(space, objective, rng, sampler, c, claimed);
      if (!c.start)
        return std::nullopt;
    }
    return std::nullopt;
  }

  void observe(const SearchSpace &space, Objective &objective,
               std::mt19937_64 &rng, Chain &c, const Point &p,
               std::optional<double> t) {
    if (c.startPending) {
      c.startPending = false;
      c.start.reset();
      c.at = p;
      c.time = t;
      aim(space, objective, rng, c);
      return;
    }
    if (t && (!c.time || *t < *c.time)) {
      c.at = p;
      c.time = t;
      aim(space, objective, rng, c);
    }
  }

  /// Parallel chains, one per device: each round every chain proposes its
  /// next unseen neighbour (first improvement), distinct across chains. The
  /// first chain climbs from the default, the others from random points.
  void walkInChains(const SearchSpace &space, Objective &objective,
                    std::mt19937_64 &rng, UnseenSampler &sampler) override {
    std::vector<Chain> chains(objective.parallelism());
    {
      PointSet claimed;
      for (size_t k = 0; k < chains.size(); ++k) {
        if (auto d = space.defaultPoint(); k == 0 && d && space.isValid(*d))
          chains[k].start = d;
        else
          chains[k].start = sampler.next(objective, rng, &claimed);
        if (chains[k].start)
          claimed.insert(*chains[k].start);
      }
    }
    std::erase_if(chains, [](const Chain &c) { return !c.start; });
    while (size_t q = objective.batchSize()) {
      PointSet claimed;
      std::vector<Point> batch;
      std::vector<size_t> owner;
      for (size_t k = 0; k < chains.size() && batch.size() < q; ++k)
        if (auto p =
                propose(space, objective, rng, sampler, chains[k], claimed)) {
          claimed.insert(*p);
          batch.push_back(std::move(*p));
          owner.push_back(k);
        }
      if (batch.empty())
        return;
      auto times = objective.evaluateBatch(batch);
      for (size_t k = 0; k < batch.size(); ++k)
        observe(space, objective, rng, chains[owner[k]], batch[k], times[k]);
    }
  }
};

} // namespace

Expected<std::unique_ptr<Strategy>>
makeIteratedLocalSearch(const nlohmann::json &o) {
  OptionReader r(o, "ils");
  IlsOptions opts;
  KTUNE_TRY(r.integer("kick_moves", opts.kickMoves, 1, 100));
  KTUNE_TRY(r.integer("restart_after", opts.restartAfter, 1, 1000000));
  KTUNE_TRY(r.boolean("adjacent_first", opts.adjacentFirst));
  KTUNE_TRY(r.finish());
  return std::make_unique<IteratedLocalSearch>("ils", opts);
}

} // namespace ktune
