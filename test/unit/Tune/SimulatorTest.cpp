#include "ktune/Tune/Simulator.h"
#include "TestData.h"
#include "ktune/Support/FileUtil.h"
#include "ktune/Tune/T1.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace ktune;
using nlohmann::json;

namespace {
const std::string Convolution = convolutionSpaces();

Configuration configOf(const json &j) {
  Configuration c;
  for (const auto &[k, v] : j.items())
    c[k] = v.get<int64_t>();
  return c;
}
} // namespace

TEST(ReplayEvaluator, ReplaysEveryRecordOfAT4File) {
  KTUNE_REQUIRE_DATA(Convolution + "T1_input.json");
  auto replay = ReplayEvaluator::readT4File(Convolution + "A6000_T4.json.gz");
  ASSERT_TRUE(replay) << replay.error().str();
  EXPECT_EQ(replay->device(), "simulated A6000");

  // Independent reading of the same file.
  auto text = readMaybeGzipFile(Convolution + "A6000_T4.json.gz");
  ASSERT_TRUE(text);
  json t4 = json::parse(*text);
  size_t correct = 0, compile = 0, runtime = 0;
  double best = INFINITY;
  for (const auto &r : t4["results"]) {
    Configuration c = configOf(r["configuration"]);
    EvalResult e = replay->evaluate({}, c);
    std::string invalidity = r["invalidity"];
    if (invalidity == "correct") {
      ++correct;
      ASSERT_EQ(e.status, EvalStatus::Ok);
      ASSERT_TRUE(e.time);
      double ms = r["measurements"][0]["value"].get<double>();
      EXPECT_DOUBLE_EQ(e.time->medianUs, ms * 1000.0);
      EXPECT_GT(e.time->reps, 0);
      best = std::min(best, ms * 1000.0);
    } else {
      EXPECT_FALSE(e.time);
      EXPECT_EQ(e.status, invalidity == "compile" ? EvalStatus::CompileError
                                                  : EvalStatus::RuntimeError);
      compile += invalidity == "compile";
      runtime += invalidity == "runtime";
    }
  }
  EXPECT_EQ(replay->size(), t4["results"].size());
  EXPECT_GT(correct, 0u);
  EXPECT_GT(compile + runtime, 0u); // this device has failures to replay
  EXPECT_DOUBLE_EQ(*replay->bestTimeUs(), best);

  // A configuration the file does not hold fails.
  Configuration missing = configOf(t4["results"][0]["configuration"]);
  missing["block_size_x"] = 17;
  EXPECT_EQ(replay->evaluate({}, missing).status, EvalStatus::Pruned);
}

TEST(ReplayEvaluator, T4ErrorsNameThePath) {
  auto noTime = json::parse(R"({"results": [{"configuration": {"a": 1},
      "invalidity": "correct", "measurements": [{"name": "time", "value": "x"}]}]})");
  auto e = ReplayEvaluator::fromT4(noTime, "d");
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().where, "results[0].measurements");
  auto text = json::parse(R"({"results": [{"configuration": {"a": "x"}}]})");
  auto e2 = ReplayEvaluator::fromT4(text, "d");
  ASSERT_FALSE(e2);
  EXPECT_EQ(e2.error().where, "results[0].configuration.a");
  auto seconds =
      json::parse(R"({"metadata": {"timeunit": "seconds"}, "results": [
      {"configuration": {"a": 1}, "invalidity": "correct",
       "measurements": [{"name": "time", "value": 0.002}]}]})");
  auto s = ReplayEvaluator::fromT4(seconds, "d");
  ASSERT_TRUE(s);
  EXPECT_DOUBLE_EQ(*s->bestTimeUs(), 2000.0);
  auto furlongs = seconds;
  furlongs["metadata"]["timeunit"] = "furlongs";
  EXPECT_FALSE(ReplayEvaluator::fromT4(furlongs, "d"));
}

TEST(ReplayEvaluator, ReplaysAJournal) {
  std::string journal =
      R"({"key": {"kernel": "k", "device": "NVIDIA H200", "arch": "sm_90", "shape": {"n": 1024}, "config": {"B": 64}}, "status": "ok", "time_us": {"median": 12.5, "iqr": 0.1, "reps": 100}})"
      "\n"
      R"({"key": {"kernel": "k", "device": "NVIDIA H200", "arch": "sm_90", "shape": {"n": 1024}, "config": {"B": 128}}, "status": "compile_error", "reason": "too many registers"})"
      "\n\n"
      R"({"key": {"kernel": "k", "device": "NVIDIA H200", "arch": "sm_90", "shape": {"n": 4096}, "config": {"B": 64}}, "status": "ok", "time_us": {"median": 40.0}})"
      "\n"
      R"({"key": {"kernel": "k", "device": "NVIDIA H200", "arch": "sm_90", "shape": {"n": 1024}, "config": {"B": 64}}, "status": "ok", "time_us": {"median": 11.0}})"
      "\n";
  auto replay = ReplayEvaluator::fromJournal(journal, "j.jsonl");
  ASSERT_TRUE(replay) << replay.error().str();
  EXPECT_EQ(replay->device(), "simulated NVIDIA H200");
  EXPECT_EQ(replay->arch(), "sm_90");
  EXPECT_EQ(replay->shapes().size(), 2u);
  EXPECT_EQ(replay->size(), 3u);
  auto small = replay->evaluate({{"n", 1024}}, {{"B", 64}});
  ASSERT_EQ(small.status, EvalStatus::Ok);
  EXPECT_DOUBLE_EQ(small.time->medianUs, 11.0); // the last line wins
  auto failed = replay->evaluate({{"n", 1024}}, {{"B", 128}});
  EXPECT_EQ(failed.status, EvalStatus::CompileError);
  EXPECT_EQ(failed.reason, "too many registers");
  EXPECT_DOUBLE_EQ(replay->evaluate({{"n", 4096}}, {{"B", 64}}).time->medianUs,
                   40.0);
  EXPECT_EQ(replay->evaluate({{"n", 7}}, {{"B", 64}}).status,
            EvalStatus::Pruned);
  EXPECT_DOUBLE_EQ(*replay->bestTimeUs({{"n", 4096}}), 40.0);

  auto bad =
      ReplayEvaluator::fromJournal(journal + "{\"key\": {}}\n", "j.jsonl");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().where, "j.jsonl:6");
  auto garbage = ReplayEvaluator::fromJournal("not json\n", "j.jsonl");
  ASSERT_FALSE(garbage);
  EXPECT_EQ(garbage.error().where, "j.jsonl:1:2"); // line 1, column 2
  auto okNoTime = ReplayEvaluator::fromJournal(
      R"({"key": {"config": {"B": 1}}, "status": "ok"})", "j");
  EXPECT_FALSE(okNoTime);
  auto unknownStatus = ReplayEvaluator::fromJournal(
      R"({"key": {"config": {"B": 1}}, "status": "great"})", "j");
  EXPECT_FALSE(unknownStatus);
  auto twoKernels = ReplayEvaluator::fromJournal(
      R"({"key": {"kernel": "a", "config": {"B": 1}}, "status": "pruned"})"
      "\n"
      R"({"key": {"kernel": "b", "config": {"B": 1}}, "status": "pruned"})",
      "j");
  ASSERT_FALSE(twoKernels);
  auto chosen = ReplayEvaluator::fromJournal(
      R"({"key": {"kernel": "a", "config": {"B": 1}}, "status": "pruned"})"
      "\n"
      R"({"key": {"kernel": "b", "config": {"B": 2}}, "status": "pruned"})",
      "j", "b");
  ASSERT_TRUE(chosen);
  EXPECT_EQ(chosen->size(), 1u);
}

TEST(Simulation, CountsUniqueEvaluationsAndContractBreaches) {
  auto space = SearchSpace::create(
      {SpaceParam{"a", Domain::ofRange(0, 9), std::nullopt}}, {"a != 5"});
  ASSERT_TRUE(space);
  FunctionEvaluator eval([](const Configuration &c) -> std::optional<double> {
    if (c.at("a") == 3)
      return std::nullopt;
    return 10.0 + std::abs(c.at("a") - 7);
  });

  // A deliberately careless strategy: repeats, asks for an invalid point
  // and keeps going past the budget.
  struct Careless : Strategy {
    std::string name() const override { return "careless"; }
    void run(const SearchSpace &, Objective &o, std::mt19937_64 &) override {
      o.evaluate({1});
      o.evaluate({1});
      EXPECT_TRUE(o.seen({1}));
      EXPECT_EQ(o.cached({1}), 16.0);
      o.evaluate({5});
      o.evaluate({3});
      EXPECT_EQ(o.cached({3}), std::nullopt);
      for (uint32_t a = 0; a < 10; ++a)
        if (a != 5)
          o.evaluate({a});
    }
  } careless;
  std::vector<SimulatedEvaluation> logged;
  SimulationOptions options;
  options.budget = 4;
  options.onEvaluation = [&](const SimulatedEvaluation &e) {
    logged.push_back(e);
  };
  SimulationResult r = simulateRun(*space, eval, careless, options);
  ASSERT_EQ(r.evaluations.size(), 4u);
  EXPECT_EQ(logged.size(), 4u);
  EXPECT_EQ(r.evaluations[0].config, (Configuration{{"a", 1}}));
  EXPECT_EQ(r.evaluations[1].status, EvalStatus::RuntimeError); // a == 3
  // Evaluated: a = 1 (16), 3 (fails), 0 (17), 2 (15).
  EXPECT_EQ(r.repeatedRequests, 3u);   // a = 1 twice more, a = 3 once more
  EXPECT_EQ(r.invalidRequests, 1u);    // a = 5
  EXPECT_EQ(r.overBudgetRequests, 5u); // a = 4, 6, 7, 8, 9
  EXPECT_EQ(r.bestTimeUs(), 15.0);
  EXPECT_EQ(r.evaluationsToReach(16.0), 1u);
  EXPECT_EQ(r.evaluationsToReach(1.0), std::nullopt);
}
