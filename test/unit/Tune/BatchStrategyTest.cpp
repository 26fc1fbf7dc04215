// Strategies that propose batches: with one device they must make exactly
// the choices they made before batching existed (fingerprints recorded
// from the sequential code), and with several they must stay within the
// strategy contract (distinct, valid, within budget).
#include "TestData.h"
#include "ktune/Support/Sha256.h"
#include "ktune/Tune/BatchStrategyBench.h"
#include "ktune/Tune/Simulator.h"
#include "ktune/Tune/T1.h"

#include <gtest/gtest.h>

#include <map>

using namespace ktune;

namespace {

const std::string Convolution = convolutionSpaces();

std::string fingerprint(const SimulationResult &r) {
  std::string text;
  for (const auto &e : r.evaluations)
    text += nlohmann::json(e.config).dump() + ";";
  return sha256Hex(text).substr(0, 16);
}

SimulationResult runOn(const std::string &strategy, const std::string &device,
                       unsigned devices, uint64_t budget, uint64_t seed) {
  auto t1 = readT1File(Convolution + "T1_input.json");
  EXPECT_TRUE(t1) << t1.error().str();
  SearchSpace space = *t1->searchSpace();
  auto replay =
      ReplayEvaluator::readT4File(Convolution + device + "_T4.json.gz");
  EXPECT_TRUE(replay) << replay.error().str();
  auto s = makeStrategy(strategy);
  EXPECT_TRUE(s) << s.error().str();
  SimulationOptions options;
  options.budget = budget;
  options.seed = seed;
  options.devices = devices;
  return simulateRun(space, *replay, **s, options);
}

} // namespace

TEST(BatchStrategies, OneDeviceMakesTheSequentialChoices) {
  KTUNE_REQUIRE_DATA(Convolution + "T1_input.json");
  // Fingerprints of the sequences the strategies chose before they could
  // propose batches (budget 60, seed 7, A100 recording).
  const std::map<std::string, std::string> expected = {
      {"annealing", "96999719488b570c"},   {"bayes", "55b1eec21dc46149"},
      {"brute_force", "bfb5f2bb4e77d0a1"}, {"genetic", "91f6fe1b67f4fe48"},
      {"ils", "263354dbc565663d"},         {"random", "f7c7c1ff5bbcba14"}};
  for (const auto &[name, print] : expected) {
    auto r = runOn(name, "A100", 1, 60, 7);
    EXPECT_EQ(r.evaluations.size(), 60u) << name;
    EXPECT_EQ(fingerprint(r), print) << name;
  }
}

namespace {

class BatchedStrategy : public ::testing::TestWithParam<std::string> {};

} // namespace

TEST_P(BatchedStrategy, FourDevicesSpendTheBudgetInRoundsOfFour) {
  KTUNE_REQUIRE_DATA(Convolution + "T1_input.json");
  for (uint64_t seed : {1, 2}) {
    auto r = runOn(GetParam(), "A4000", 4, 61, seed);
    EXPECT_EQ(r.evaluations.size(), 61u);
    EXPECT_EQ(r.repeatedRequests + r.invalidRequests + r.overBudgetRequests,
              0u);
    // Full rounds of four, then the one left over.
    EXPECT_EQ(r.rounds(), 16u) << GetParam();
    for (size_t k = 0; k < r.evaluations.size(); ++k)
      EXPECT_EQ(r.evaluations[k].round, k / 4 + 1) << GetParam() << " " << k;
    // Reproducible.
    auto again = runOn(GetParam(), "A4000", 4, 61, seed);
    EXPECT_EQ(fingerprint(again), fingerprint(r)) << GetParam();
  }
}

INSTANTIATE_TEST_SUITE_P(Tune, BatchedStrategy,
                         ::testing::Values("brute_force", "random", "annealing",
                                           "genetic", "ils", "bayes"));

TEST(BatchStrategies, OneDeviceRoundsAreEvaluations) {
  KTUNE_REQUIRE_DATA(Convolution + "T1_input.json");
  auto r = runOn("genetic", "A100", 1, 30, 3);
  for (size_t k = 0; k < r.evaluations.size(); ++k)
    EXPECT_EQ(r.evaluations[k].round, k + 1);
}

// The bar on a subset that runs in seconds: ILS with 4 virtual devices on
// two recorded spaces, 10 seeds (the whole table is in bench/results).
TEST(BatchStrategies, FourDevicesMeetTheBarOnASubset) {
  KTUNE_REQUIRE_DATA(Convolution + "T1_input.json");
  auto t1 = readT1File(Convolution + "T1_input.json");
  ASSERT_TRUE(t1);
  std::vector<BenchSpace> spaces;
  for (const char *device : {"A4000", "MI250X"}) {
    auto replay =
        ReplayEvaluator::readT4File(Convolution + device + "_T4.json.gz");
    ASSERT_TRUE(replay);
    BenchSpace b;
    b.name = device;
    b.space = *t1->searchSpace();
    b.optimumUs = *replay->bestTimeUs();
    b.evaluator = std::make_shared<ReplayEvaluator>(std::move(*replay));
    spaces.push_back(b);
  }
  BenchOptions options;
  options.budget = 220;
  options.seeds = 10;
  options.devices = 4;
  options.threads = 2;
  auto report = runBatchBench(spaces, {{"ils", "ils", {}}}, options);
  ASSERT_TRUE(report) << report.error().str();
  const BatchBenchRow &row = report->rows.at(0);
  EXPECT_EQ(row.sequentialUnreached + row.batchUnreached, 0u);
  EXPECT_TRUE(row.meets(BatchBenchBar{}))
      << "rounds ratio " << row.roundRatio() << ", evaluations ratio "
      << row.evaluationRatio();
}
