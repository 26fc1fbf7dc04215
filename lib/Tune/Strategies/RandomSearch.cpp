//===- RandomSearch.cpp - Uniform sampling without replacement ------------===//

#include "StrategySupport.h"

namespace ktune {

namespace {

class RandomSearch : public SamplingStrategy<NoOptions> {
public:
  RandomSearch() : SamplingStrategy("random", {}) {}
  void search(const SearchSpace &space, Objective &objective,
              std::mt19937_64 &rng, UnseenSampler &sampler) override {
    if (objective.parallelism() > 1) {
      // One round: as many distinct unseen points as there are devices.
      while (size_t q = objective.batchSize()) {
        PointSet drawn;
        std::vector<Point> batch;
        fillUnseen(batch, q, drawn, sampler, objective, rng);
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
