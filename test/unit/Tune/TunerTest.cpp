#include "ktune/Tune/Tuner.h"
#include "ktune/Tune/MultiDevice.h"

#include "Fakes.h"
#include "TempDir.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <set>
#include <thread>

using namespace ktune;
using namespace ktune::testing;
using nlohmann::json;

namespace {

/// BLOCK in {32..1024} x VEC in {1,2,4,8}; default 256 x 4.
SpaceDefinition space() {
  SpaceDefinition d;
  d.params.push_back({"BLOCK", Domain::ofPow2Range(32, 1024), 256});
  d.params.push_back({"VEC", Domain::ofValues({1, 2, 4, 8}), 4});
  d.constraints = {"BLOCK * VEC <= 4096"};
  return d;
}

/// Fastest at BLOCK=128, VEC=8 for small n, BLOCK=512, VEC=8 for large n;
/// BLOCK=1024 with VEC=2 fails to compile.
std::optional<double> timeOf(const Shape &shape, const Configuration &c) {
  int64_t b = c.at("BLOCK"), v = c.at("VEC");
  if (b == 1024 && v == 2)
    return std::nullopt;
  int64_t n = shape.count("n") ? shape.at("n") : 1;
  double ideal = n >= 1000 ? 512 : 128;
  double t = 10 + std::abs(std::log2(static_cast<double>(b) / ideal)) * 3 +
             (8 - v) * 0.5;
  return t * (n >= 1000 ? 4 : 1);
}

TuneOptions options(uint64_t budget) {
  TuneOptions o = scanOptions(budget);
  o.topK = 2;
  return o;
}

TuneOptions randomOptions(uint64_t budget, uint64_t seed,
                          bool skipSeen = false) {
  TuneOptions o = options(budget);
  o.strategyName = skipSeen ? "random-unseen" : "random-double";
  o.seed = seed;
  o.makeStrategy = [skipSeen]() -> Expected<std::unique_ptr<Strategy>> {
    if (skipSeen)
      return std::make_unique<RandomUnseen>();
    return std::make_unique<RandomDouble>();
  };
  return o;
}

std::unique_ptr<Journal> openJournal(const std::string &path) {
  auto j = Journal::open(path);
  EXPECT_TRUE(j) << j.error().str();
  return std::move(*j);
}

} // namespace

TEST(SpaceFromManifest, OverridesConstraintsAndRegisterCap) {
  auto m = manifestFromJson(json::parse(R"({
    "ktune": "manifest/1", "source": "k.tpl.cu",
    "kernels": [{"name": "k", "template_params": [
      {"name": "B", "type": "int", "tunable": true, "kind": "block_size",
       "default": 128, "values": [64, 128, 256]},
      {"name": "U", "type": "int", "tunable": true, "kind": "unroll",
       "default": 1, "values": [1, 2, 4]}],
     "constraints": ["B % 64 == 0"]}]})"));
  ASSERT_TRUE(m) << m.error().str();
  Spec spec;
  spec.domains["U"] = Domain::ofValues({1, 4});
  spec.constraints = {"B * U <= n"};
  spec.maxRegisters = {64, 128};
  auto def = spaceFromManifest(m->kernels[0], spec);
  ASSERT_TRUE(def) << def.error().str();
  ASSERT_EQ(def->params.size(), 3u);
  EXPECT_EQ(def->params[1].domain.values, (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(def->params[2].name, "maxrregcount");
  // The reference has no cap: 0 joins the domain and is the default.
  EXPECT_EQ(def->params[2].domain.values, (std::vector<int64_t>{0, 64, 128}));
  EXPECT_EQ(def->params[2].defaultValue, 0);
  EXPECT_EQ(def->constraints,
            (std::vector<std::string>{"B % 64 == 0", "B * U <= n"}));

  spec.domains["U"] = Domain::ofValues({2, 4});
  auto bad = spaceFromManifest(m->kernels[0], spec);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().where, "domains.U");
}

TEST(Tuner, DefaultFirstThenSearchWithinBudget) {
  TempDir dir;
  auto journal = openJournal(dir.file("j.jsonl"));
  FakeEvaluator eval(timeOf);
  std::vector<Shape> shapes = {{{"n", 10}}, {{"n", 5000}}};
  Tuner tuner(space(), shapes, eval, *journal, options(12));
  auto r = tuner.run();
  ASSERT_TRUE(r) << r.error().str();
  ASSERT_EQ(r->shapes.size(), 2u);

  // Per shape: the default first, 12 evaluations in all, none repeated.
  std::vector<JournalEntry> searched;
  for (const auto &e : journal->entries())
    if (e.phase == JournalPhase::Default || e.phase == JournalPhase::Search)
      searched.push_back(e);
  ASSERT_EQ(searched.size(), 24u);
  EXPECT_EQ(searched[0].phase, JournalPhase::Default);
  EXPECT_EQ(searched[0].key.config,
            (Configuration{{"BLOCK", 256}, {"VEC", 4}}));
  EXPECT_EQ(searched[12].phase, JournalPhase::Default);
  EXPECT_EQ(searched[12].key.shape, shapes[1]);
  std::set<std::string> keys;
  for (const auto &e : searched)
    EXPECT_TRUE(keys.insert(e.key.canonical()).second) << e.key.canonical();

  for (const auto &s : r->shapes) {
    EXPECT_EQ(s.evaluations, 12u);
    EXPECT_EQ(s.stopReason, "budget");
    EXPECT_EQ(s.defaultConfig, (Configuration{{"BLOCK", 256}, {"VEC", 4}}));
    EXPECT_TRUE(s.retimed);
    ASSERT_TRUE(s.bestTime && s.defaultTime);
    EXPECT_LE(s.bestTime->medianUs, s.defaultTime->medianUs);
    EXPECT_DOUBLE_EQ(s.speedup, s.defaultTime->medianUs / s.bestTime->medianUs);
    // The default plus top-k finalists were re-timed.
    EXPECT_EQ(s.finalists.size(), 3u);
    EXPECT_EQ(s.finalists[0].config, s.defaultConfig);
  }
  // Prefetching reached the evaluator.
  EXPECT_FALSE(eval.Prepared.empty());
  EXPECT_EQ(r->device, "fake GPU");
  EXPECT_EQ(r->params, (std::vector<std::string>{"BLOCK", "VEC"}));
}

TEST(Tuner, FindsTheOptimumWhenTheBudgetCoversTheSpace) {
  TempDir dir;
  auto journal = openJournal(dir.file("j.jsonl"));
  FakeEvaluator eval(timeOf);
  Tuner tuner(space(), {{{"n", 10}}}, eval, *journal, options(1000));
  auto r = tuner.run();
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->shapes[0].stopReason, "space exhausted");
  EXPECT_EQ(r->shapes[0].bestConfig,
            (Configuration{{"BLOCK", 128}, {"VEC", 8}}));
  // 6 block sizes x 4 widths, less 1024 x 8 (over BLOCK * VEC <= 4096).
  EXPECT_EQ(r->shapes[0].evaluations, 23u);
  EXPECT_EQ(r->shapes[0].statusCounts.at(EvalStatus::CompileError), 1u);
  EXPECT_EQ(r->shapes[0].statusCounts.at(EvalStatus::Ok), 22u);
}

TEST(Tuner, ASpaceSearchedWholeIsCompiledBeforeTheSearch) {
  // 23 valid configurations within a budget of 30: all of them handed to
  // the compiler at once, before the first evaluation (whose default is
  // handed over once more as its search starts).
  TempDir dir;
  auto journal = openJournal(dir.file("j.jsonl"));
  FakeEvaluator eval(timeOf);
  size_t preparedBeforeFirstCall = 0;
  eval.F = [&](const Shape &shape, const Configuration &c) {
    if (eval.Calls.size() == 1)
      preparedBeforeFirstCall = eval.Prepared.size();
    return timeOf(shape, c);
  };
  Tuner tuner(space(), {{{"n", 10}}, {{"n", 5000}}}, eval, *journal,
              options(30));
  ASSERT_TRUE(tuner.run());
  EXPECT_EQ(preparedBeforeFirstCall, 24u);
  std::set<Configuration> distinct(eval.Prepared.begin(),
                                   eval.Prepared.begin() + 23);
  EXPECT_EQ(distinct.size(), 23u);

  // A budget smaller than the space: the search decides what is compiled,
  // as it goes.
  TempDir dir2;
  auto journal2 = openJournal(dir2.file("j.jsonl"));
  FakeEvaluator eval2(timeOf);
  Tuner tuner2(space(), {{{"n", 10}}}, eval2, *journal2, options(12));
  ASSERT_TRUE(tuner2.run());
  EXPECT_LT(eval2.Prepared.size(), 23u);
}

TEST(Tuner, WinnerComesFromTheInterleavedRetiming) {
  TempDir dir;
  auto journal = openJournal(dir.file("j.jsonl"));
  FakeEvaluator eval(timeOf);
  // Re-timing shows the search's best was lucky: 128x8 is really slow.
  eval.RetimeF = [](const Shape &s, const Configuration &c) {
    auto t = timeOf(s, c);
    if (c.at("BLOCK") == 128 && c.at("VEC") == 8)
      return std::optional<double>(100.0);
    return t;
  };
  Tuner tuner(space(), {{{"n", 10}}}, eval, *journal, options(1000));
  auto r = tuner.run();
  ASSERT_TRUE(r) << r.error().str();
  const ShapeResult &s = r->shapes[0];
  EXPECT_TRUE(s.retimed);
  EXPECT_NE(s.bestConfig, (Configuration{{"BLOCK", 128}, {"VEC", 8}}));
  EXPECT_EQ(eval.RetimeCalls, 1);
  // Re-timings are journaled, in one batch, and do not count as evaluations.
  size_t retimes = 0;
  for (const auto &e : journal->entries())
    if (e.phase == JournalPhase::Retime) {
      ++retimes;
      EXPECT_FALSE(e.retimeBatch.empty());
    }
  EXPECT_EQ(retimes, s.finalists.size());
  EXPECT_EQ(s.evaluations, 23u);
}

/// Re-timing: the default at 10 µs, BLOCK=128 VEC=8 at `best`, the others
/// slower than the default.
ShapeResult settledWith(double best, double spread, TuneOptions o) {
  TempDir dir;
  auto journal = openJournal(dir.file("j.jsonl"));
  FakeEvaluator eval(timeOf);
  eval.RetimeSpread = spread;
  eval.RetimeF = [best](const Shape &, const Configuration &c) {
    if (c.at("BLOCK") == 128 && c.at("VEC") == 8)
      return std::optional<double>(best);
    if (c.at("BLOCK") == 256 && c.at("VEC") == 4)
      return std::optional<double>(10.0);
    return std::optional<double>(20.0);
  };
  Tuner tuner(space(), {{{"n", 10}}}, eval, *journal, std::move(o));
  auto r = tuner.run();
  EXPECT_TRUE(r) << r.error().str();
  return r ? r->shapes[0] : ShapeResult{};
}

const Configuration DefaultConfig{{"BLOCK", 256}, {"VEC", 4}};
const Configuration FastConfig{{"BLOCK", 128}, {"VEC", 8}};

TEST(Tuner, ANearTieKeepsTheDefault) {
  // 0.5 % faster: inside the 1 % minimum effect, so the next run could
  // pick either; the default stays and the margin is recorded.
  ShapeResult s = settledWith(9.95, 0.001, options(1000));
  ASSERT_TRUE(s.retimed);
  EXPECT_EQ(s.bestConfig, DefaultConfig);
  EXPECT_TRUE(s.keptWithinNoise);
  EXPECT_NEAR(s.margin, 10.0 / 9.95 - 1, 1e-9);
  EXPECT_DOUBLE_EQ(s.noiseThreshold, 0.01);
  EXPECT_DOUBLE_EQ(s.speedup, 1.0);
}

TEST(Tuner, ALeadBeyondTheNoiseLeavesTheDefault) {
  ShapeResult s = settledWith(9.0, 0.001, options(1000));
  ASSERT_TRUE(s.retimed);
  EXPECT_EQ(s.bestConfig, FastConfig);
  EXPECT_FALSE(s.keptWithinNoise);
  EXPECT_NEAR(s.margin, 10.0 / 9.0 - 1, 1e-9);
  EXPECT_NEAR(s.speedup, 10.0 / 9.0, 1e-9);
}

TEST(Tuner, ANoisyRetimingRaisesTheThreshold) {
  // A 5 % lead, but each time spreads 8 %: not a lead one can trust.
  ShapeResult noisy = settledWith(10.0 / 1.05, 0.08, options(1000));
  EXPECT_EQ(noisy.bestConfig, DefaultConfig);
  EXPECT_TRUE(noisy.keptWithinNoise);
  EXPECT_DOUBLE_EQ(noisy.noiseThreshold, 0.08);
  // The same lead with a tight spread is taken.
  ShapeResult steady = settledWith(10.0 / 1.05, 0.001, options(1000));
  EXPECT_EQ(steady.bestConfig, FastConfig);
}

TEST(Tuner, TheMinimumEffectIsAnOption) {
  TuneOptions o = options(1000);
  o.minEffect = 0.2;
  ShapeResult s = settledWith(9.0, 0.001, o); // an 11 % lead
  EXPECT_EQ(s.bestConfig, DefaultConfig);
  EXPECT_TRUE(s.keptWithinNoise);
  EXPECT_DOUBLE_EQ(s.noiseThreshold, 0.2);
}

TEST(Tuner, RerunAfterCompletionEvaluatesNothing) {
  TempDir dir;
  std::string path = dir.file("j.jsonl");
  TuneResults first;
  {
    auto journal = openJournal(path);
    FakeEvaluator eval(timeOf);
    auto r =
        Tuner(space(), {{{"n", 10}}, {{"n", 5000}}}, eval, *journal, options(9))
            .run();
    ASSERT_TRUE(r) << r.error().str();
    first = *r;
  }
  auto journal = openJournal(path);
  size_t before = journal->entries().size();
  FakeEvaluator eval(timeOf);
  auto r =
      Tuner(space(), {{{"n", 10}}, {{"n", 5000}}}, eval, *journal, options(9))
          .run();
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_TRUE(eval.Calls.empty());
  EXPECT_EQ(eval.RetimeCalls, 0); // the journal's complete re-timing is reused
  EXPECT_EQ(journal->entries().size(), before);
  EXPECT_EQ(resultsToJson(*r), resultsToJson(first));
}

TEST(Tuner, ResumesAfterACrashWithoutRepeatingAnEvaluation) {
  for (bool skipSeen : {false, true})
    for (uint64_t crashAt : {0u, 1u, 5u, 13u, 19u}) {
      SCOPED_TRACE("crash after " + std::to_string(crashAt) +
                   (skipSeen ? ", strategy skipping seen points" : ""));
      TempDir dir;
      std::vector<Shape> shapes = {{{"n", 10}}, {{"n", 5000}}};

      // The reference: one uninterrupted run.
      TuneResults reference;
      std::vector<std::pair<Shape, Configuration>> referenceCalls;
      {
        auto journal = openJournal(dir.file("clean.jsonl"));
        FakeEvaluator eval(timeOf);
        auto r = Tuner(space(), shapes, eval, *journal,
                       randomOptions(10, 7, skipSeen))
                     .run();
        ASSERT_TRUE(r) << r.error().str();
        reference = *r;
        referenceCalls = eval.Calls;
      }

      // The same run, killed after `crashAt` evaluations, then run again.
      std::string path = dir.file("crash.jsonl");
      std::vector<std::pair<Shape, Configuration>> firstCalls;
      {
        auto journal = openJournal(path);
        FakeEvaluator eval(timeOf);
        eval.CrashAfter = crashAt;
        EXPECT_THROW((void)Tuner(space(), shapes, eval, *journal,
                                 randomOptions(10, 7, skipSeen))
                         .run(),
                     SimulatedCrash);
        firstCalls = eval.Calls;
        size_t evaluations = 0;
        for (const auto &e : journal->entries())
          evaluations += e.phase != JournalPhase::Retime;
        EXPECT_EQ(evaluations, crashAt); // everything finished was journaled
      }
      auto journal = openJournal(path);
      FakeEvaluator eval(timeOf);
      auto r =
          Tuner(space(), shapes, eval, *journal, randomOptions(10, 7, skipSeen))
              .run();
      ASSERT_TRUE(r) << r.error().str();

      // Nothing evaluated twice; together exactly the uninterrupted run.
      std::set<std::pair<Shape, Configuration>> seen(firstCalls.begin(),
                                                     firstCalls.end());
      for (const auto &call : eval.Calls)
        EXPECT_TRUE(seen.insert(call).second)
            << "repeated " << configText(call.second);
      auto all = firstCalls;
      all.insert(all.end(), eval.Calls.begin(), eval.Calls.end());
      EXPECT_EQ(all, referenceCalls);
      for (size_t i = 0; i < shapes.size(); ++i)
        EXPECT_EQ(r->shapes[i].evaluations, 10u);
      EXPECT_EQ(resultsToJson(*r)["shapes"],
                resultsToJson(reference)["shapes"]);
      EXPECT_EQ(resultsToJson(*r)["general"],
                resultsToJson(reference)["general"]);
    }
}

TEST(Tuner, TimeLimitStopsTheSearch) {
  TempDir dir;
  auto journal = openJournal(dir.file("j.jsonl"));
  FakeEvaluator eval(timeOf);
  eval.DelayMs = 20;
  TuneOptions o = options(1000);
  o.timeLimitSeconds = 0.15;
  auto r = Tuner(space(), {{{"n", 10}}}, eval, *journal, o).run();
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->shapes[0].stopReason, "time limit");
  EXPECT_LT(r->shapes[0].evaluations, 23u);
  EXPECT_GE(r->shapes[0].evaluations, 1u); // the default always
}

TEST(Tuner, StopRequestFinishesWithWhatWasFound) {
  TempDir dir;
  auto journal = openJournal(dir.file("j.jsonl"));
  std::atomic<bool> stop{false};
  FakeEvaluator eval([&](const Shape &s, const Configuration &c) {
    if (c.at("BLOCK") == 64)
      stop = true; // as if Ctrl-C arrived now
    return timeOf(s, c);
  });
  TuneOptions o = options(1000);
  o.stopRequested = &stop;
  auto r =
      Tuner(space(), {{{"n", 10}}, {{"n", 5000}}}, eval, *journal, o).run();
  ASSERT_TRUE(r) << r.error().str();
  ASSERT_EQ(r->shapes.size(), 1u); // the second shape was never started
  EXPECT_EQ(r->shapes[0].stopReason, "interrupted");
  EXPECT_EQ(eval.RetimeCalls, 0);
}

TEST(Tuner, GeneralConfigurationIsMeasuredOnEveryShape) {
  TempDir dir;
  auto journal = openJournal(dir.file("j.jsonl"));
  FakeEvaluator eval(timeOf);
  std::vector<Shape> shapes = {{{"n", 10}}, {{"n", 20}}, {{"n", 5000}}};
  auto r = Tuner(space(), shapes, eval, *journal, options(1000)).run();
  ASSERT_TRUE(r) << r.error().str();
  ASSERT_TRUE(r->general);
  ASSERT_EQ(r->general->perShape.size(), 3u);
  // 128x8 is best for the small shapes, 512x8 for the large one; both lose
  // 2 steps of log2 elsewhere, and the geomean prefers the small shapes' pick.
  EXPECT_EQ(r->general->config, (Configuration{{"BLOCK", 128}, {"VEC", 8}}));
  for (const auto &p : r->general->perShape)
    EXPECT_GT(p.medianUs, 0);
  EXPECT_GT(r->general->geomeanSpeedup, 1.0);
}

TEST(Tuner, GeneralCandidatesUnmeasuredOnAShapeAreEvaluatedThere) {
  TempDir dir;
  auto journal = openJournal(dir.file("j.jsonl"));
  FakeEvaluator eval(timeOf);
  std::vector<Shape> shapes = {{{"n", 10}}, {{"n", 5000}}};
  // A budget of 3 cannot cover the space: each shape's finalists are
  // unknown on the other shape.
  auto r = Tuner(space(), shapes, eval, *journal, randomOptions(3, 11)).run();
  ASSERT_TRUE(r) << r.error().str();
  size_t general = 0;
  for (const auto &e : journal->entries())
    if (e.phase == JournalPhase::General)
      ++general;
  EXPECT_GT(general, 0u);
  ASSERT_TRUE(r->general);
  EXPECT_EQ(r->general->perShape.size(), 2u);
}

// Several devices: every shape's default (its reference) is evaluated before
// any search, on the devices at once, and so is what the general phase
// needs; the results are those of one device.
TEST(Tuner, SeveralDevicesEvaluateDefaultsAndGeneralCandidatesAtOnce) {
  const Configuration defaultConfig{{"BLOCK", 256}, {"VEC", 4}};
  std::atomic<int> inFlight{0}, mostDefault{0}, mostOther{0};
  auto raise = [](std::atomic<int> &most, int now) {
    for (int seen = most.load(); now > seen;)
      if (most.compare_exchange_weak(seen, now))
        break;
  };
  // Only the default and general phases can overlap: the test strategy
  // evaluates one point at a time, and re-timing does not come here.
  auto slow = [&](const Shape &s,
                  const Configuration &c) -> std::optional<double> {
    int now = ++inFlight;
    raise(c == defaultConfig ? mostDefault : mostOther, now);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    --inFlight;
    return timeOf(s, c);
  };
  std::vector<Shape> shapes = {
      {{"n", 10}}, {{"n", 20}}, {{"n", 5000}}, {{"n", 7000}}};
  TempDir dir;
  TuneResults alone;
  {
    auto journal = openJournal(dir.file("one.jsonl"));
    FakeEvaluator eval(timeOf);
    auto r = Tuner(space(), shapes, eval, *journal, randomOptions(3, 11)).run();
    ASSERT_TRUE(r) << r.error().str();
    alone = *r;
  }
  std::vector<std::unique_ptr<Evaluator>> workers;
  for (int i = 0; i < 2; ++i) {
    auto w = std::make_unique<FakeEvaluator>(slow);
    w->RetimeF = timeOf;
    workers.push_back(std::move(w));
  }
  auto group = DeviceGroup::create(std::move(workers), {0, 1});
  ASSERT_TRUE(group) << group.error().str();
  auto journal = openJournal(dir.file("two.jsonl"));
  auto r =
      Tuner(space(), shapes, **group, *journal, randomOptions(3, 11)).run();
  ASSERT_TRUE(r) << r.error().str();

  std::vector<JournalPhase> phases;
  size_t general = 0;
  for (const auto &e : journal->entries()) {
    phases.push_back(e.phase);
    general += e.phase == JournalPhase::General;
  }
  ASSERT_GE(phases.size(), shapes.size());
  for (size_t i = 0; i < shapes.size(); ++i)
    EXPECT_EQ(phases[i], JournalPhase::Default) << i;
  EXPECT_EQ(std::count(phases.begin(), phases.end(), JournalPhase::Default),
            static_cast<long>(shapes.size()));
  EXPECT_EQ(mostDefault.load(), 2);
  ASSERT_GE(general, 2u);
  EXPECT_EQ(mostOther.load(), 2);
  EXPECT_EQ(resultsToJson(*r)["shapes"], resultsToJson(alone)["shapes"]);
  EXPECT_EQ(resultsToJson(*r)["general"], resultsToJson(alone)["general"]);
}

// Several devices: a shape's finalists are re-timed on a device the search
// can spare while the next shapes are searched, not all at the end.
TEST(Tuner, FinalistsAreRetimedAsideWhileTheSearchGoesOn) {
  std::mutex lock;
  std::vector<std::string> events; // "eval n" / "retime n", as they start
  auto logged = [&](const char *what, int sleepMs) {
    return [&, what, sleepMs](const Shape &s,
                              const Configuration &c) -> std::optional<double> {
      {
        std::lock_guard<std::mutex> guard(lock);
        events.push_back(std::string(what) + " " + std::to_string(s.at("n")));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(sleepMs));
      return timeOf(s, c);
    };
  };
  std::vector<Shape> shapes = {{{"n", 10}}, {{"n", 20}}, {{"n", 5000}}};
  TempDir dir;
  TuneResults alone;
  {
    auto journal = openJournal(dir.file("one.jsonl"));
    FakeEvaluator eval(timeOf);
    auto r = Tuner(space(), shapes, eval, *journal, options(12)).run();
    ASSERT_TRUE(r) << r.error().str();
    alone = *r;
  }
  std::vector<FakeEvaluator *> fakes;
  std::vector<std::unique_ptr<Evaluator>> workers;
  for (int i = 0; i < 2; ++i) {
    auto w = std::make_unique<FakeEvaluator>(logged("eval", 2));
    w->RetimeF = logged("retime", 10);
    fakes.push_back(w.get());
    workers.push_back(std::move(w));
  }
  auto group = DeviceGroup::create(std::move(workers), {0, 1});
  ASSERT_TRUE(group) << group.error().str();
  auto journal = openJournal(dir.file("two.jsonl"));
  auto r = Tuner(space(), shapes, **group, *journal, options(12)).run();
  ASSERT_TRUE(r) << r.error().str();

  // Shape 10's finalists were re-timed (on the spared GPU 1) before the
  // last shape's search ended.
  auto firstRetime = std::find(events.begin(), events.end(), "retime 10");
  auto lastEval = std::find(events.rbegin(), events.rend(), "eval 5000");
  ASSERT_NE(firstRetime, events.end());
  ASSERT_NE(lastEval, events.rend());
  EXPECT_LT(firstRetime - events.begin(), events.rend() - lastEval - 1);
  EXPECT_GT(fakes[1]->RetimeCalls, 0);
  // Every shape re-timed once, journaled, with the results of one device.
  size_t retimed = 0;
  for (const auto &e : journal->entries())
    retimed += e.phase == JournalPhase::Retime;
  EXPECT_EQ(retimed, 3u * 3u); // the default and top-2 finalists per shape
  EXPECT_EQ(fakes[0]->RetimeCalls + fakes[1]->RetimeCalls, 3);
  EXPECT_EQ(resultsToJson(*r)["shapes"], resultsToJson(alone)["shapes"]);
}

TEST(Tuner, AShapeCutShortAdoptsTheGeneralConfigurationWhereItIsFaster) {
  // A budget of 3 leaves most shapes' searches far from their optimum; the
  // general configuration (another shape's winner) may be faster there. No
  // tuned shape may end with a winner slower than the general configuration
  // measured at that shape.
  size_t adopted = 0;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    TempDir dir;
    auto journal = openJournal(dir.file("j.jsonl"));
    FakeEvaluator eval(timeOf);
    std::vector<Shape> shapes = {{{"n", 10}}, {{"n", 20}}, {{"n", 30}}};
    auto r =
        Tuner(space(), shapes, eval, *journal, randomOptions(3, seed)).run();
    ASSERT_TRUE(r) << r.error().str();
    ASSERT_TRUE(r->general);
    for (size_t i = 0; i < r->shapes.size(); ++i) {
      const ShapeResult &s = r->shapes[i];
      ASSERT_TRUE(s.bestTime);
      EXPECT_LE(*timeOf(s.shape, s.bestConfig),
                *timeOf(s.shape, r->general->config))
          << "seed " << seed << " shape " << i;
      if (s.adoptedGeneral) {
        ++adopted;
        EXPECT_EQ(s.bestConfig, r->general->config);
        EXPECT_TRUE(s.retimed);
        EXPECT_EQ(s.finalists.back().config, r->general->config);
      }
    }
  }
  EXPECT_GT(adopted, 0u);
}

TEST(Tuner, CompileOnlyWalksTheValidSpaceDefaultFirst) {
  TempDir dir;
  auto journal = openJournal(dir.file("j.jsonl"));
  FakeEvaluator eval([](const Shape &s, const Configuration &c) {
    return c.at("BLOCK") == 1024 ? std::nullopt : std::optional<double>(1.0);
  });
  TuneOptions o = options(UINT64_MAX);
  o.compileOnly = true;
  o.makeStrategy = nullptr;
  auto r = Tuner(space(), {{{"n", 10}}}, eval, *journal, o).run();
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_TRUE(r->compileOnly);
  EXPECT_EQ(r->shapes[0].evaluations, 23u);
  EXPECT_EQ(r->shapes[0].statusCounts.at(EvalStatus::CompileError), 3u);
  EXPECT_EQ(eval.Calls.front().second,
            (Configuration{{"BLOCK", 256}, {"VEC", 4}}));
  EXPECT_EQ(eval.Prepared.size(), 23u);
  EXPECT_FALSE(r->general);
}

TEST(Tuner, ConstraintOverDimensionsShrinksTheSpacePerShape) {
  TempDir dir;
  auto journal = openJournal(dir.file("j.jsonl"));
  FakeEvaluator eval(timeOf);
  SpaceDefinition d = space();
  d.constraints.push_back("BLOCK <= n");
  auto r = Tuner(d, {{{"n", 300}}}, eval, *journal, options(1000)).run();
  ASSERT_TRUE(r) << r.error().str();
  for (const auto &call : eval.Calls)
    if (call.second != Configuration{{"BLOCK", 256}, {"VEC", 4}})
      EXPECT_LE(call.second.at("BLOCK"), 300);
}

TEST(Tuner, NoDefaultIsAnError) {
  TempDir dir;
  auto journal = openJournal(dir.file("j.jsonl"));
  FakeEvaluator eval(timeOf);
  SpaceDefinition d = space();
  d.params[1].defaultValue.reset();
  auto r = Tuner(d, {{{"n", 10}}}, eval, *journal, options(5)).run();
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("default"), std::string::npos);
}

TEST(Tuner, ADefaultThatDoesNotCompileStopsWithTheCompilersMessage) {
  TempDir dir;
  auto journal = openJournal(dir.file("j.jsonl"));
  FakeEvaluator eval([](const Shape &, const Configuration &c) {
    return c.at("BLOCK") == 256 ? std::nullopt : std::optional<double>(1.0);
  });
  eval.FailureReason = [](const Configuration &) {
    return "compile error: k.tpl.cu(12): error: identifier \"uint\" is "
           "undefined | k.tpl.cu(13): error: more";
  };
  for (bool compileOnly : {false, true}) {
    TuneOptions o = options(20);
    o.compileOnly = compileOnly;
    auto r = Tuner(space(), {{{"n", 10}}}, eval, *journal, o).run();
    ASSERT_FALSE(r) << "compile only: " << compileOnly;
    EXPECT_EQ(r.error().where, "k.tpl.cu:12");
    EXPECT_NE(r.error().message.find(
                  "the default configuration (BLOCK=256 VEC=4) does not "
                  "compile at shape n=10: error: identifier \"uint\" is "
                  "undefined"),
              std::string::npos)
        << r.error().message;
  }
  // Nothing but the default was compiled.
  for (const auto &call : eval.Calls)
    EXPECT_EQ(call.second.at("BLOCK"), 256);
}

TEST(Tuner, ADefaultThatFailsAtRunTimeStopsToo) {
  TempDir dir;
  auto journal = openJournal(dir.file("j.jsonl"));
  FakeEvaluator eval(timeOf);
  eval.F = [](const Shape &s, const Configuration &c) {
    return s.at("n") == 5000 && c.at("BLOCK") == 256
               ? std::nullopt
               : std::optional<double>(2.0);
  };
  eval.FailureReason = [](const Configuration &) {
    return std::string("wrong result");
  };
  auto r =
      Tuner(space(), {{{"n", 10}}, {{"n", 5000}}}, eval, *journal, options(8))
          .run();
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("at shape n=5000"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("nothing was tuned"), std::string::npos);
}

TEST(Tuner, MostConfigurationsFailingIsSaidWithTheCommonestReason) {
  TempDir dir;
  auto journal = openJournal(dir.file("j.jsonl"));
  FakeEvaluator eval([](const Shape &, const Configuration &c) {
    return c.at("VEC") == 4 ? std::optional<double>(1.0) : std::nullopt;
  });
  eval.FailureReason = [](const Configuration &c) -> std::string {
    if (c.at("VEC") == 8)
      return "compile error: k.tpl.cu(30): error: too wide";
    // Each its own message: none as common as the one above.
    return "compile error: k.tpl.cu(20): error: " +
           std::to_string(c.at("BLOCK")) + " x " + std::to_string(c.at("VEC")) +
           " unsupported";
  };
  eval.Compiler.backend = "nvcc";
  eval.Compiler.reason = "NVRTC cannot compile the default configuration";
  TuneOptions o = options(UINT64_MAX);
  o.compileOnly = true;
  o.makeStrategy = nullptr;
  auto r = Tuner(space(), {{{"n", 10}}}, eval, *journal, o).run();
  ASSERT_TRUE(r) << r.error().str();
  const FailureSummary &f = r->failures.at(EvalStatus::CompileError);
  EXPECT_EQ(f.count, 17u); // 23 valid, 6 with VEC = 4
  EXPECT_EQ(f.commonestReason, "k.tpl.cu:30: error: too wide");
  EXPECT_EQ(f.commonestCount, 5u);
  std::string table = formatResultsTable(*r);
  EXPECT_NE(table.find("warning: 17 of 23 evaluated configurations did not "
                       "compile; the commonest reason (5 of them): "
                       "k.tpl.cu:30: error: too wide"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("compiled with nvcc (NVRTC cannot compile the default "
                       "configuration)"),
            std::string::npos);
  // The journal keys name the compiler that is not NVRTC.
  for (const auto &e : journal->entries())
    EXPECT_EQ(e.key.compiler, "nvcc");
  // Read back, the results keep both.
  auto back = resultsFromJson(resultsToJson(*r));
  ASSERT_TRUE(back) << back.error().str();
  EXPECT_EQ(back->compiler.backend, "nvcc");
  EXPECT_EQ(back->failures.at(EvalStatus::CompileError).commonestCount, 5u);
  EXPECT_EQ(failureWarning(*back), failureWarning(*r));
}

TEST(Tuner, ResultsFromAnotherCompilerAreNotReused) {
  TempDir dir;
  auto journal = openJournal(dir.file("j.jsonl"));
  FakeEvaluator eval(timeOf);
  auto first = Tuner(space(), {{{"n", 10}}}, eval, *journal, options(6)).run();
  ASSERT_TRUE(first);
  size_t calls = eval.Calls.size();
  eval.Compiler.backend = "nvcc";
  auto second = Tuner(space(), {{{"n", 10}}}, eval, *journal, options(6)).run();
  ASSERT_TRUE(second);
  EXPECT_GE(eval.Calls.size(), calls + 6); // measured afresh
}
