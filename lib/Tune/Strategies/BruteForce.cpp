//===- BruteForce.cpp - Every valid point, in order -----------------------===//

#include "StrategySupport.h"

namespace ktune {

namespace {

class BruteForce : public Strategy {
public:
  std::string name() const override { return "brute_force"; }
  void run(const SearchSpace &space, Objective &objective,
           std::mt19937_64 &) override {
    if (objective.parallelism() > 1) {
      // In order, a batch of unseen points per round.
      std::vector<Point> batch;
      bool more = true;
      space.forEachValid([&](const Point &p) {
        size_t q = objective.batchSize();
        if (q == 0) {
          more = false;
          return false;
        }
        if (!objective.seen(p))
          batch.push_back(p);
        if (batch.size() >= q) {
          objective.evaluateBatch(batch);
          batch.clear();
        }
        return true;
      });
      if (more && !batch.empty())
        objective.evaluateBatch(batch);
      return;
    }
    space.forEachValid([&](const Point &p) {
      if (objective.exhausted())
        return false;
      if (!objective.seen(p))
        objective.evaluate(p);
      return true;
    });
  }
};

} // namespace

Expected<std::unique_ptr<Strategy>> makeBruteForce(const nlohmann::json &o) {
  return makeWithoutOptions<BruteForce>(o, "brute_force");
}

} // namespace ktune
