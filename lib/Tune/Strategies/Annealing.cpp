//===- Annealing.cpp - Simulated annealing with reheating -----------------===//
//
// Moves between Hamming neighbours (one parameter changed to any valid
// value). A worse neighbour is accepted with probability exp(-d/T), d the
// log-time ratio, so the temperature means the same on every kernel: at
// T = 0.3 a 35 % slower point is accepted with probability 1/e. The
// strategy cannot know the budget, so instead of ending cold it reheats from
// the best point once the temperature has fallen to its floor. Moving to a
// point already seen costs nothing (its outcome is cached); when every
// neighbour is seen, the walk jumps to a random unseen point.
//
//===----------------------------------------------------------------------===//

#include "StrategySupport.h"

#include "ktune/Support/Try.h"

#include <cmath>

namespace ktune {

namespace {

struct AnnealingOptions {
  double initialTemperature = 0.3;
  double finalTemperature = 0.01;
  double cooling = 0.95; // per evaluation
};

class Annealing : public WalkingStrategy<AnnealingOptions> {
public:
  using WalkingStrategy::WalkingStrategy;
  void walk(const SearchSpace &space, Objective &objective,
            std::mt19937_64 &rng, UnseenSampler &sampler) override {
    auto start = [&]() -> std::optional<Point> {
      if (auto d = space.defaultPoint();
          d && space.isValid(*d) && !objective.seen(*d))
        return d;
      return sampler.next(objective, rng);
    }();
    if (!start || objective.exhausted())
      return;
    Point current = *start;
    std::optional<double> currentTime = evaluateOnce(objective, current);
    Point best = current;
    std::optional<double> bestTime = currentTime;
    double temperature = O.initialTemperature;
    std::uniform_real_distribution<double> unit(0.0, 1.0);

    while (!objective.exhausted()) {
      std::vector<Point> around = hammingNeighbours(space, current);
      std::vector<Point> unseen;
      for (auto &q : around)
        if (!objective.seen(q))
          unseen.push_back(q);
      Point next;
      if (!unseen.empty()) {
        next = unseen[std::uniform_int_distribution<size_t>(0, unseen.size() -
                                                                   1)(rng)];
      } else {
        // A neighbourhood fully explored: restart somewhere new.
        auto p = sampler.next(objective, rng);
        if (!p)
          return;
        next = *p;
      }
      std::optional<double> time = objective.evaluate(next);
      temperature *= O.cooling;
      if (time && (!bestTime || *time < *bestTime)) {
        best = next;
        bestTime = time;
      }
      bool accept = false;
      if (time && !currentTime)
        accept = true;
      else if (time && currentTime) {
        double delta = std::log(*time / *currentTime);
        accept = delta <= 0 || unit(rng) < std::exp(-delta / temperature);
      } else if (unseen.empty()) {
        accept = true; // a jump: go there even if it failed, to move on
      }
      if (accept) {
        current = next;
        currentTime = time;
      }
      if (temperature < O.finalTemperature) {
        // Reheat from the best point found so far.
        temperature = O.initialTemperature;
        current = best;
        currentTime = bestTime;
      }
    }
  }

private:
  /// Parallel chains, one per device: each round every chain proposes one
  /// unseen neighbour (distinct across chains) and the batch is measured
  /// together. The first chain starts at the default, the others at random
  /// points; a chain that cools down reheats from the best point of all.
  void walkInChains(const SearchSpace &space, Objective &objective,
                    std::mt19937_64 &rng, UnseenSampler &sampler) override {
    struct Chain {
      std::optional<Point> current;
      std::optional<double> time;
      double temperature;
    };
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<Chain> chains(
        objective.parallelism(),
        Chain{std::nullopt, std::nullopt, O.initialTemperature});
    std::optional<Point> best;
    std::optional<double> bestTime;
    auto consider = [&](const Point &p, std::optional<double> t) {
      if (t && (!bestTime || *t < *bestTime)) {
        best = p;
        bestTime = t;
      }
    };
    // Starting points, measured as the first batch.
    {
      PointSet claimed;
      std::vector<Point> batch;
      std::vector<size_t> owner;
      for (size_t c = 0; c < chains.size(); ++c) {
        std::optional<Point> start;
        if (auto d = space.defaultPoint();
            c == 0 && d && space.isValid(*d) && !objective.seen(*d))
          start = d;
        else
          start = sampler.next(objective, rng, &claimed);
        if (!start)
          break;
        claimed.insert(*start);
        chains[c].current = *start;
        if (batch.size() < objective.batchSize()) {
          batch.push_back(*start);
          owner.push_back(c);
        }
      }
      auto times = objective.evaluateBatch(batch);
      for (size_t k = 0; k < batch.size(); ++k) {
        chains[owner[k]].time = times[k];
        consider(batch[k], times[k]);
      }
    }
    std::erase_if(chains, [](const Chain &c) { return !c.current; });
    if (chains.empty())
      return;
    while (size_t q = objective.batchSize()) {
      PointSet claimed;
      std::vector<Point> batch;
      std::vector<size_t> owner;
      std::vector<bool> jumped;
      for (size_t c = 0; c < chains.size() && batch.size() < q; ++c) {
        std::vector<Point> unseen;
        for (auto &n : hammingNeighbours(space, *chains[c].current))
          if (!objective.seen(n) && !claimed.count(n))
            unseen.push_back(std::move(n));
        std::optional<Point> next;
        if (!unseen.empty())
          next = unseen[std::uniform_int_distribution<size_t>(0, unseen.size() -
                                                                     1)(rng)];
        else
          next = sampler.next(objective, rng, &claimed);
        if (!next)
          continue;
        claimed.insert(*next);
        batch.push_back(*next);
        owner.push_back(c);
        jumped.push_back(unseen.empty());
      }
      if (batch.empty())
        return;
      auto times = objective.evaluateBatch(batch);
      for (size_t k = 0; k < batch.size(); ++k) {
        Chain &chain = chains[owner[k]];
        auto time = times[k];
        consider(batch[k], time);
        chain.temperature *= O.cooling;
        bool accept = false;
        if (time && !chain.time)
          accept = true;
        else if (time && chain.time) {
          double delta = std::log(*time / *chain.time);
          accept =
              delta <= 0 || unit(rng) < std::exp(-delta / chain.temperature);
        } else if (jumped[k]) {
          accept = true;
        }
        if (accept) {
          chain.current = batch[k];
          chain.time = time;
        }
        if (chain.temperature < O.finalTemperature && best) {
          chain.temperature = O.initialTemperature;
          chain.current = best;
          chain.time = bestTime;
        }
      }
    }
  }

};

} // namespace

Expected<std::unique_ptr<Strategy>> makeAnnealing(const nlohmann::json &o) {
  OptionReader r(o, "annealing");
  AnnealingOptions opts;
  KTUNE_TRY(
      r.number("initial_temperature", opts.initialTemperature, 1e-6, 100));
  KTUNE_TRY(r.number("final_temperature", opts.finalTemperature, 1e-9, 100));
  KTUNE_TRY(r.number("cooling", opts.cooling, 0.5, 0.99999));
  KTUNE_TRY(r.finish());
  if (opts.finalTemperature >= opts.initialTemperature)
    return makeError("must be below initial_temperature",
                     "annealing.final_temperature");
  return std::make_unique<Annealing>("annealing", opts);
}

} // namespace ktune
