#include "TestData.h"
#include "ktune/Tune/Simulator.h"
#include "ktune/Tune/StrategyBench.h"
#include "ktune/Tune/T1.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

using namespace ktune;
using nlohmann::json;

namespace {

const std::string Convolution = convolutionSpaces();
const std::vector<std::string> Devices = {"A100",   "A4000", "A6000",
                                          "MI250X", "W6600", "W7800"};

struct Recorded {
  SearchSpace full, small;
  std::map<std::string, std::shared_ptr<ReplayEvaluator>> replay;
};

/// The shared convolution space, and a 128-point sub-space of it with
/// block_size_y, tile_size_x, use_padding and use_shmem fixed.
const Recorded &recorded() {
  static const Recorded r = [] {
    Recorded out;
    auto t1 = readT1File(Convolution + "T1_input.json");
    EXPECT_TRUE(t1) << t1.error().str();
    out.full = *t1->searchSpace();
    T1Space fixed = *t1;
    std::map<std::string, int64_t> pin = {{"block_size_y", 2},
                                          {"tile_size_x", 1},
                                          {"use_padding", 0},
                                          {"use_shmem", 1}};
    for (auto &p : fixed.params)
      if (pin.count(p.name))
        p.domain = Domain::ofValues({pin[p.name]});
    out.small = *fixed.searchSpace();
    for (const auto &d : Devices) {
      auto replay =
          ReplayEvaluator::readT4File(Convolution + d + "_T4.json.gz");
      EXPECT_TRUE(replay) << replay.error().str();
      out.replay[d] = std::make_shared<ReplayEvaluator>(std::move(*replay));
    }
    return out;
  }();
  return r;
}

/// The best time of a space by brute force over the recording.
double optimumOf(const SearchSpace &space, ReplayEvaluator &replay) {
  double best = INFINITY;
  space.forEachValid([&](const Point &p) {
    auto r = replay.evaluate({}, space.toConfig(p));
    if (r.status == EvalStatus::Ok)
      best = std::min(best, r.time->medianUs);
    return true;
  });
  return best;
}

SimulationResult simulate(const std::string &strategy, const SearchSpace &space,
                          Evaluator &eval, uint64_t budget, uint64_t seed) {
  auto s = makeStrategy(strategy);
  EXPECT_TRUE(s) << s.error().str();
  SimulationOptions options;
  options.budget = budget;
  options.seed = seed;
  return simulateRun(space, eval, **s, options);
}

std::vector<Configuration> sequence(const SimulationResult &r) {
  std::vector<Configuration> out;
  for (const auto &e : r.evaluations)
    out.push_back(e.config);
  return out;
}

class EveryStrategy : public ::testing::TestWithParam<std::string> {};

} // namespace

TEST_P(EveryStrategy, CoversASmallSpaceFindsItsOptimumAndStops) {
  KTUNE_REQUIRE_DATA(Convolution + "T1_input.json");
  const Recorded &r = recorded();
  uint64_t size = *r.small.validCount();
  ASSERT_EQ(size, 128u);
  for (const auto &d : Devices) {
    SimulationResult result =
        simulate(GetParam(), r.small, *r.replay.at(d), 10 * size, 1);
    EXPECT_EQ(result.evaluations.size(), size) << d; // all, then it stops
    EXPECT_EQ(result.repeatedRequests + result.invalidRequests +
                  result.overBudgetRequests,
              0u)
        << d;
    EXPECT_EQ(result.bestTimeUs(), optimumOf(r.small, *r.replay.at(d))) << d;
  }
}

TEST_P(EveryStrategy, SpendsExactlyTheBudgetOnDistinctValidPoints) {
  KTUNE_REQUIRE_DATA(Convolution + "T1_input.json");
  const Recorded &r = recorded();
  for (const auto &d : {"A6000", "W7800"}) { // both with failed configurations
    SimulationResult result =
        simulate(GetParam(), r.full, *r.replay.at(d), 60, 3);
    ASSERT_EQ(result.evaluations.size(), 60u);
    EXPECT_EQ(result.repeatedRequests, 0u);
    EXPECT_EQ(result.invalidRequests, 0u);
    EXPECT_EQ(result.overBudgetRequests, 0u);
    std::set<Point> distinct;
    for (const auto &e : result.evaluations) {
      EXPECT_TRUE(r.full.isValid(e.point));
      distinct.insert(e.point);
    }
    EXPECT_EQ(distinct.size(), 60u);
  }
}

TEST_P(EveryStrategy, IsReproducibleWithASeed) {
  KTUNE_REQUIRE_DATA(Convolution + "T1_input.json");
  const Recorded &r = recorded();
  ReplayEvaluator &eval = *r.replay.at("MI250X");
  auto a = sequence(simulate(GetParam(), r.full, eval, 50, 11));
  auto b = sequence(simulate(GetParam(), r.full, eval, 50, 11));
  EXPECT_EQ(a, b);
  if (GetParam() != "brute_force") {
    auto c = sequence(simulate(GetParam(), r.full, eval, 50, 12));
    EXPECT_NE(a, c);
  }
}

TEST_P(EveryStrategy, EndsWhenATightlyConstrainedSpaceRunsOut) {
  // 10^6 cartesian points, 10 valid ones, a budget far larger.
  std::vector<SpaceParam> params;
  for (const char *name : {"a", "b", "c"})
    params.push_back({name, Domain::ofRange(0, 99), std::nullopt});
  auto space = SearchSpace::create(params, {"a == b", "b == c", "a % 10 == 3"});
  ASSERT_TRUE(space);
  FunctionEvaluator eval([](const Configuration &c) -> std::optional<double> {
    return 1.0 + std::abs(c.at("a") - 43);
  });
  SimulationResult result = simulate(GetParam(), *space, eval, 1000, 5);
  EXPECT_EQ(result.evaluations.size(), 10u);
  EXPECT_EQ(result.repeatedRequests + result.invalidRequests, 0u);
  EXPECT_EQ(result.bestTimeUs(), 1.0);
}

TEST_P(EveryStrategy, SearchesABillionPointSpaceLazily) {
  // Nine 10-valued parameters under a constraint: far too many points to
  // list, so every strategy must sample and walk lazily.
  std::vector<SpaceParam> params;
  std::string sum;
  for (int k = 0; k < 9; ++k) {
    params.push_back({"p" + std::to_string(k), Domain::ofRange(0, 9), 0});
    sum += (k ? " + p" : "p") + std::to_string(k);
  }
  auto space = SearchSpace::create(params, {sum + " <= 30"});
  ASSERT_TRUE(space);
  FunctionEvaluator eval([](const Configuration &c) -> std::optional<double> {
    double t = 10.0;
    for (const auto &[name, v] : c)
      t += (v - 3) * (v - 3);
    return t;
  });
  SimulationResult result = simulate(GetParam(), *space, eval, 40, 9);
  ASSERT_EQ(result.evaluations.size(), 40u);
  EXPECT_EQ(result.repeatedRequests + result.invalidRequests +
                result.overBudgetRequests,
            0u);
  std::set<Point> distinct;
  for (const auto &e : result.evaluations)
    distinct.insert(e.point);
  EXPECT_EQ(distinct.size(), 40u);
}

INSTANTIATE_TEST_SUITE_P(Tune, EveryStrategy,
                         ::testing::ValuesIn(strategyNames()),
                         [](const auto &info) { return info.param; });

TEST(Strategies, GuidedSearchBeatsRandomOrderOnSmallSpaces) {
  KTUNE_REQUIRE_DATA(Convolution + "T1_input.json");
  // Uniform random order needs (N + 1) / 2 = 64.5 evaluations on average
  // to hit the single best of 128 points. The guided strategies must do
  // clearly better on the median over the six recorded sub-spaces and
  // three seeds.
  const Recorded &r = recorded();
  for (const std::string strategy : {"annealing", "genetic", "bayes", "ils"}) {
    std::vector<double> needed;
    for (const auto &d : Devices) {
      double best = optimumOf(r.small, *r.replay.at(d));
      for (uint64_t seed : {1, 2, 3}) {
        SimulationResult result =
            simulate(strategy, r.small, *r.replay.at(d), 128, seed);
        needed.push_back(static_cast<double>(*result.evaluationsToReach(best)));
      }
    }
    EXPECT_LT(median(needed), 48.0) << strategy;
  }
}

TEST(Strategies, OptionsAreChecked) {
  EXPECT_TRUE(makeStrategy("bayes", json::parse(R"({"xi": 0.1})")));
  auto unknown = makeStrategy("bayes", json::parse(R"({"xj": 0.1})"));
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().where, "bayes.xj");
  auto range = makeStrategy("genetic", json::parse(R"({"population": 1})"));
  ASSERT_FALSE(range);
  EXPECT_EQ(range.error().where, "genetic.population");
  auto type = makeStrategy("annealing", json::parse(R"({"cooling": "fast"})"));
  ASSERT_FALSE(type);
  auto choice = makeStrategy("bayes", json::parse(R"({"acquisition": "pi"})"));
  ASSERT_FALSE(choice);
  EXPECT_FALSE(makeStrategy("brute_force", json::parse(R"({"x": 1})")));
  auto name = makeStrategy("pso");
  ASSERT_FALSE(name);
  EXPECT_NE(name.error().message.find("bayes"), std::string::npos);
  for (const auto &n : strategyNames()) {
    auto s = makeStrategy(n);
    ASSERT_TRUE(s) << n;
    EXPECT_EQ((*s)->name(), n);
  }
}

TEST(StrategyBench, MediansTablesAndBaselines) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2.0);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  auto baseline = parseMarkdownTable(
      "# title\n\ntext\n\n| strategy | A | B | sum |\n|---|---|---|---|\n"
      "| pso | 221 | 49.5 | 270.5 |\n| random | 1 | 2 | 3 |\n\nafter\n");
  ASSERT_TRUE(baseline);
  EXPECT_EQ(baseline->header,
            (std::vector<std::string>{"strategy", "A", "B", "sum"}));
  ASSERT_EQ(baseline->rows.size(), 2u);
  EXPECT_EQ(baseline->rows[0].first, "pso");
  EXPECT_EQ(baseline->rows[0].second[1], "49.5");
  EXPECT_FALSE(parseMarkdownTable("no table here"));

  std::vector<BenchCell> cells = {{"s", "A", {1, 2, 3}, 2.0, 0},
                                  {"s", "B", {5, 221, 221}, 221.0, 0}};
  MarkdownTable t = benchTable(cells, {"A", "B"}, "ktune ");
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_EQ(t.rows[0].first, "ktune s");
  EXPECT_EQ(t.rows[0].second, (std::vector<std::string>{"2", "221", "223"}));
  EXPECT_NE(renderMarkdownTable(t).find("| ktune s | 2 | 221 | 223 |"),
            std::string::npos);
}

TEST(StrategyBench, RunsStrategiesOverSpacesAndSeeds) {
  KTUNE_REQUIRE_DATA(Convolution + "T1_input.json");
  const Recorded &r = recorded();
  BenchSpace space;
  space.name = "A4000-small";
  space.space = r.small;
  space.evaluator = r.replay.at("A4000");
  space.optimumUs = optimumOf(r.small, *r.replay.at("A4000"));
  BenchOptions options;
  options.budget = 128;
  options.seeds = 4;
  options.threads = 2;
  auto cells = runStrategyBench({space},
                                {{"brute", "brute_force", json::object()},
                                 {"rand", "random", json::object()}},
                                options);
  ASSERT_TRUE(cells) << cells.error().str();
  ASSERT_EQ(cells->size(), 2u);
  // Brute force walks in a fixed order: every seed needs the same count.
  const BenchCell &brute = (*cells)[0];
  EXPECT_EQ(brute.strategy, "brute");
  EXPECT_EQ(
      std::set<uint64_t>(brute.evaluations.begin(), brute.evaluations.end())
          .size(),
      1u);
  for (const auto &c : *cells) {
    EXPECT_EQ(c.evaluations.size(), 4u);
    EXPECT_EQ(c.breaches, 0u);
    for (auto e : c.evaluations)
      EXPECT_LE(e, 128u); // the budget covers the space
  }
  auto bad =
      runStrategyBench({space}, {{"x", "nope", json::object()}}, options);
  EXPECT_FALSE(bad);
}

TEST(StrategyBench, PermutedDomainsKeepThePointsAndTimes) {
  KTUNE_REQUIRE_DATA(Convolution + "T1_input.json");
  auto t1 = readT1File(Convolution + "T1_input.json");
  ASSERT_TRUE(t1);
  SearchSpace space = *t1->searchSpace();
  auto permuted =
      permuteDomains(space, t1->conditions, expr::Dialect::Python, 1);
  ASSERT_TRUE(permuted) << permuted.error().str();
  std::set<Configuration> a, b;
  space.forEachValid(
      [&](const Point &p) { return a.insert(space.toConfig(p)), true; });
  permuted->forEachValid(
      [&](const Point &p) { return b.insert(permuted->toConfig(p)), true; });
  EXPECT_EQ(a, b);
  bool reordered = false;
  for (size_t k = 0; k < space.dims(); ++k)
    reordered |= space.params()[k].domain.enumerate() !=
                 permuted->params()[k].domain.enumerate();
  EXPECT_TRUE(reordered);
}

TEST(StrategyBench, SyntheticSpacesHaveKnownOptima) {
  for (const auto &s : syntheticBenchSpaces()) {
    EXPECT_GT(s.space.cartesianSize(), 10000u) << s.name;
    EXPECT_GT(s.optimumUs, 0.0) << s.name;
    // No valid point is faster than the stated optimum.
    std::mt19937_64 rng(1);
    for (int i = 0; i < 500; ++i) {
      auto p = s.space.randomValid(rng);
      ASSERT_TRUE(p);
      auto r = s.evaluator->evaluate({}, s.space.toConfig(*p));
      if (r.status == EvalStatus::Ok) {
        EXPECT_GE(r.time->medianUs, s.optimumUs) << s.name;
      }
    }
  }
}
