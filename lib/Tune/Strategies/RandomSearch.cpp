//===- RandomSearch.cpp - Uniform sampling without replacement ------------===//

#include "StrategySupport.h"

namespace ktune {

namespace {

class RandomSearch : public Strategy {
public:
  std::string name() const override { return "random"; }
  void run(const SearchSpace &space, Objective &objective,
           std::mt19937_64 &rng) override {
    UnseenSampler sampler(space);
    if (objective.parallelism() > 1) {
      // One round: as many distinct unseen points as there are devices.
      while (size_t q = objective.batchSize()) {
        PointSet drawn;
        std::vector<Point> batch;
        while (batch.size() < q) {
          auto p = sampler.next(objective, rng, &drawn);
          if (!p)
            break;
          drawn.insert(*p);
          batch.push_back(std::move(*p));
        }
        if (batch.empty())
          return;
        objective.evaluateBatch(batch);
      }
      return;
    }
    while (!objective.exhausted()) {
      auto p = sampler.next(objective, rng);
      if (!p)
        return;
      objective.evaluate(*p);
    }
  }
};

} // namespace

Expected<std::unique_ptr<Strategy>> makeRandomSearch(const nlohmann::json &o) {
  return makeWithoutOptions<RandomSearch>(o, "random");
}

} // namespace ktune
