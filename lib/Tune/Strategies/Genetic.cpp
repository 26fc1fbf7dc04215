//===- Genetic.cpp - Steady-state genetic algorithm -----------------------===//
//
// A steady-state GA: each step breeds one child from two parents chosen by
// tournament, by uniform crossover and per-gene mutation to a random value,
// and the child replaces the worst member when it is better. Breeding one
// child at a time spends the budget on the current best knowledge rather
// than on whole generations. Children that break a constraint are repaired
// by re-mutating the genes that differ from a valid parent; children already
// seen are mutated again, and after a few tries a random unseen point
// immigrates instead, so every evaluation is of a new point.
//
//===----------------------------------------------------------------------===//

#include "StrategySupport.h"

#include "ktune/Support/Try.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ktune {

namespace {

struct GeneticOptions {
  int64_t population = 20;
  int64_t tournament = 3;
  double mutationRate = 0.0; // 0: 1 / number of varying parameters
  double crossoverRate = 0.9;
};

class Genetic : public SamplingStrategy<GeneticOptions> {
public:
  using SamplingStrategy::SamplingStrategy;
  void search(const SearchSpace &space, Objective &objective,
              std::mt19937_64 &rng, UnseenSampler &sampler) override {
    struct Member {
      Point point;
      double fitness; // log time; +inf for a failed point
    };
    auto fitnessOf = [](std::optional<double> t) {
      return t ? std::log(std::max(*t, 1e-30))
               : std::numeric_limits<double>::infinity();
    };
    std::vector<Member> population;
    bool batched = objective.parallelism() > 1;
    if (batched) {
      // The first population a batch at a time, the default in the first.
      std::optional<Point> first = space.defaultPoint();
      if (first && !space.isValid(*first))
        first.reset();
      while (static_cast<int64_t>(population.size()) < O.population) {
        size_t q = std::min<size_t>(objective.batchSize(),
                                    static_cast<size_t>(O.population) -
                                        population.size());
        if (q == 0)
          break;
        std::vector<Point> batch;
        PointSet drawn;
        if (first) {
          if (!objective.seen(*first))
            batch.push_back(*first);
          else
            population.push_back({*first, fitnessOf(objective.cached(*first))});
          drawn.insert(*first);
          first.reset();
        }
        fillUnseen(batch, q, drawn, sampler, objective, rng);
        if (batch.empty())
          break;
        auto times = objective.evaluateBatch(batch);
        for (size_t k = 0; k < batch.size(); ++k)
          population.push_back({batch[k], fitnessOf(times[k])});
      }
    } else {
      if (auto d = space.defaultPoint();
          d && space.isValid(*d) && !objective.exhausted())
        population.push_back({*d, fitnessOf(evaluateOnce(objective, *d))});
      while (static_cast<int64_t>(population.size()) < O.population &&
             !objective.exhausted()) {
        auto p = sampler.next(objective, rng);
        if (!p)
          break;
        population.push_back({*p, fitnessOf(objective.evaluate(*p))});
      }
    }
    if (population.empty())
      return;

    size_t dims = space.dims();
    std::vector<size_t> varyingParams;
    for (size_t k = 0; k < dims; ++k)
      if (space.params()[k].domain.size() > 1)
        varyingParams.push_back(k);
    size_t varying = varyingParams.size();
    double mutation =
        O.mutationRate > 0
            ? O.mutationRate
            : 1.0 / static_cast<double>(std::max<size_t>(varying, 1));
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    auto randomValue = [&](size_t k) {
      return std::uniform_int_distribution<uint32_t>(
          0, static_cast<uint32_t>(space.params()[k].domain.size() - 1))(rng);
    };
    auto tournament = [&]() -> const Member & {
      size_t pick =
          std::uniform_int_distribution<size_t>(0, population.size() - 1)(rng);
      for (int64_t t = 1; t < O.tournament; ++t) {
        size_t other = std::uniform_int_distribution<size_t>(
            0, population.size() - 1)(rng);
        if (population[other].fitness < population[pick].fitness)
          pick = other;
      }
      return population[pick];
    };

    // One child: bred from two parents, else an immigrant; distinct from
    // every point seen and from `claimed` (the rest of its batch).
    auto breed = [&](const PointSet *claimed) -> std::optional<Point> {
      auto fresh = [&](const Point &c) {
        return !objective.seen(c) && !(claimed && claimed->count(c));
      };
      const Member &mother = tournament();
      const Member &father = tournament();
      std::optional<Point> child;
      for (int attempt = 0; attempt < 20 && !child && varying > 0; ++attempt) {
        Point c = mother.point;
        if (unit(rng) < O.crossoverRate)
          for (size_t k = 0; k < dims; ++k)
            if (unit(rng) < 0.5)
              c[k] = father.point[k];
        // Mutate at least once on retries so a repeated child moves on.
        bool mutated = false;
        for (size_t k = 0; k < dims; ++k)
          if (space.params()[k].domain.size() > 1 && unit(rng) < mutation) {
            c[k] = randomValue(k);
            mutated = true;
          }
        if (!mutated && attempt > 0) {
          size_t k = varyingParams[std::uniform_int_distribution<size_t>(
              0, varying - 1)(rng)];
          c[k] = randomValue(k);
        }
        if (!space.isValid(c))
          c = repair(space, rng, c, mother.point);
        if (space.isValid(c) && fresh(c))
          child = c;
      }
      if (!child)
        child = sampler.next(objective, rng, claimed); // immigrant
      return child;
    };
    auto admit = [&](const Point &child, double fitness) {
      auto worst = std::max_element(population.begin(), population.end(),
                                    [](const Member &a, const Member &b) {
                                      return a.fitness < b.fitness;
                                    });
      if (fitness < worst->fitness ||
          static_cast<int64_t>(population.size()) < O.population) {
        if (static_cast<int64_t>(population.size()) < O.population)
          population.push_back({child, fitness});
        else
          *worst = {child, fitness};
      }
    };

    if (batched) {
      // A generation per round: one child per device, bred from the same
      // population, admitted once all are measured.
      while (size_t q = objective.batchSize()) {
        PointSet claimed;
        std::vector<Point> children;
        fillDistinct(children, q, claimed, [&] { return breed(&claimed); });
        if (children.empty())
          return;
        auto times = objective.evaluateBatch(children);
        for (size_t k = 0; k < children.size(); ++k)
          admit(children[k], fitnessOf(times[k]));
      }
      return;
    }
    while (!objective.exhausted()) {
      auto child = breed(nullptr);
      if (!child)
        return;
      admit(*child, fitnessOf(objective.evaluate(*child)));
    }
  }

private:
  /// Makes an invalid child valid: genes that differ from the (valid)
  /// parent are re-drawn or reset to the parent's, one at a time.
  Point repair(const SearchSpace &space, std::mt19937_64 &rng, Point c,
               const Point &parent) {
    std::vector<size_t> differing;
    for (size_t k = 0; k < c.size(); ++k)
      if (c[k] != parent[k])
        differing.push_back(k);
    std::shuffle(differing.begin(), differing.end(), rng);
    for (size_t k : differing) {
      for (int t = 0; t < 4; ++t) {
        Point trial = c;
        trial[k] = std::uniform_int_distribution<uint32_t>(
            0, static_cast<uint32_t>(space.params()[k].domain.size() - 1))(rng);
        if (space.isValid(trial))
          return trial;
      }
      c[k] = parent[k];
      if (space.isValid(c))
        return c;
    }
    return c;
  }
};

} // namespace

Expected<std::unique_ptr<Strategy>> makeGenetic(const nlohmann::json &o) {
  OptionReader r(o, "genetic");
  GeneticOptions opts;
  KTUNE_TRY(r.integer("population", opts.population, 2, 100000));
  KTUNE_TRY(r.integer("tournament", opts.tournament, 1, 100));
  KTUNE_TRY(r.number("mutation_rate", opts.mutationRate, 0.0, 1.0));
  KTUNE_TRY(r.number("crossover_rate", opts.crossoverRate, 0.0, 1.0));
  KTUNE_TRY(r.finish());
  return std::make_unique<Genetic>("genetic", opts);
}

} // namespace ktune
