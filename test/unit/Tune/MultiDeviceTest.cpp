#include "ktune/Tune/MultiDevice.h"
#include "TempDir.h"
#include "TestData.h"
#include "ktune/Tune/Journal.h"
#include "ktune/Tune/Session.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <thread>

using namespace ktune;
using namespace ktune::testing;

// Several devices in one search: the session over a replayed recording.
namespace {

std::vector<nlohmann::json> readJournalLines(const std::string &path) {
  std::ifstream in(path);
  std::vector<nlohmann::json> out;
  for (std::string line; std::getline(in, line);)
    out.push_back(nlohmann::json::parse(line));
  return out;
}

/// The journal without what differs from run to run (times of day, wall
/// times).
std::vector<nlohmann::json> stable(std::vector<nlohmann::json> lines) {
  for (auto &l : lines)
    for (const char *k : {"at", "eval_ms", "search_ms", "compile_ms"})
      l.erase(k);
  return lines;
}

const std::string ConvolutionDir = convolutionSpaces();

Expected<SessionReport> simulateSession(const std::string &dir,
                                        unsigned devices, unsigned workers,
                                        uint64_t budget) {
  TuneCommand cmd;
  cmd.simulatePath = ConvolutionDir + "A4000_T4.json.gz";
  cmd.spacePath = ConvolutionDir + "T1_input.json";
  cmd.strategy = "genetic";
  cmd.seed = 5;
  cmd.budget = budget;
  cmd.simulateDevices = devices;
  cmd.workersPerGpu = workers;
  // Evaluations that take some time: every device gets its share of each
  // batch (a free worker takes the next configuration).
  cmd.simulateDelayMs = 2;
  cmd.outPath = dir + "/results.json";
  return runTuneSession(cmd, nullptr);
}

} // namespace

TEST(MultiDevice, OneDeviceWritesTheJournalOfToday) {
  KTUNE_REQUIRE_DATA(ConvolutionDir + "T1_input.json");
  TempDir a, b;
  std::filesystem::create_directories(a.file("x"));
  std::filesystem::create_directories(b.file("x"));
  auto one = simulateSession(a.file("x"), 1, 1, 30);
  ASSERT_TRUE(one) << one.error().str();
  auto again = simulateSession(b.file("x"), 1, 1, 30);
  ASSERT_TRUE(again) << again.error().str();
  auto lines = readJournalLines(one->journalPath);
  EXPECT_GE(lines.size(), 30u);
  EXPECT_EQ(stable(lines), stable(readJournalLines(again->journalPath)));
  for (const auto &l : lines)
    EXPECT_FALSE(l.contains("gpu")); // one device: nothing to record
  EXPECT_TRUE(one->gpuActivity.empty());
}

TEST(MultiDevice, EveryEvaluationRecordsItsDevice) {
  KTUNE_REQUIRE_DATA(ConvolutionDir + "T1_input.json");
  TempDir dir;
  // Three devices, and two workers sharing each (the test mode).
  for (auto [devices, workers] : {std::pair{3u, 1u}, std::pair{1u, 2u}}) {
    std::string sub = dir.file(std::to_string(devices));
    std::filesystem::create_directories(sub);
    auto r = simulateSession(sub, devices, workers, 40);
    ASSERT_TRUE(r) << r.error().str();
    EXPECT_EQ(r->results.shapes.at(0).evaluations, 40u);
    auto lines = readJournalLines(r->journalPath);
    std::set<int> gpus;
    for (const auto &l : lines) {
      ASSERT_TRUE(l.contains("gpu")) << l.dump();
      gpus.insert(l["gpu"].get<int>());
    }
    EXPECT_EQ(gpus.size(), devices);
    ASSERT_EQ(r->gpuActivity.size(), devices * workers);
    uint64_t total = 0;
    for (const auto &a : r->gpuActivity)
      total += a.evaluations;
    EXPECT_EQ(total, lines.size());
    // Resumed: nothing is evaluated again.
    auto resumed = simulateSession(sub, devices, workers, 40);
    ASSERT_TRUE(resumed) << resumed.error().str();
    EXPECT_EQ(readJournalLines(r->journalPath).size(), lines.size());
  }
}

TEST(MultiDevice, GpuListsAreChecked) {
  EXPECT_EQ(*parseGpuList("all", 3), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(*parseGpuList("0,2", 3), (std::vector<int>{0, 2}));
  EXPECT_FALSE(parseGpuList("3", 3));
  EXPECT_FALSE(parseGpuList("0,0", 3));
  EXPECT_FALSE(parseGpuList("x", 3));
  EXPECT_FALSE(parseGpuList("all", 0));
  std::string text =
      formatGpuActivity({{0, 10, 5.0, false}, {1, 8, 5.0, false}}, 5.0);
  EXPECT_NE(text.find("GPU 1: 8 evaluation(s)"), std::string::npos) << text;
  EXPECT_NE(text.find("2.00x"), std::string::npos) << text;
}

// A group's workers take the next configuration when free; a worker that is
// lost gives its configuration back and takes no more.
namespace {

class CountingWorker : public Evaluator {
public:
  /// Lost on its evaluation number `lostOn` (1-based; 0: never).
  explicit CountingWorker(int lostOn = 0) : LostOn(lostOn) {}
  std::string device() const override { return "fake"; }
  std::string arch() const override { return "sm_90"; }
  EvalResult evaluate(const Shape &, const Configuration &config) override {
    EvalResult r;
    if (LostOn && ++Calls >= LostOn) {
      Lost = true;
      r.status = EvalStatus::RuntimeError;
      r.reason = "host gone";
      return r;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    r.time = Timing{static_cast<double>(config.at("x")), 0, 1};
    return r;
  }
  bool lost() const override { return Lost; }

private:
  int LostOn, Calls = 0;
  std::atomic<bool> Lost{false};
};

std::unique_ptr<DeviceGroup> groupOf(std::vector<int> lostOn,
                                     std::vector<int> ranks = {}) {
  std::vector<std::unique_ptr<Evaluator>> workers;
  std::vector<int> gpus;
  for (size_t i = 0; i < lostOn.size(); ++i) {
    workers.push_back(std::make_unique<CountingWorker>(lostOn[i]));
    gpus.push_back(static_cast<int>(i));
  }
  auto group = DeviceGroup::create(std::move(workers), gpus, ranks);
  EXPECT_TRUE(group) << group.error().str();
  return std::move(*group);
}

std::vector<Configuration> configs(int n) {
  std::vector<Configuration> out;
  for (int i = 0; i < n; ++i)
    out.push_back({{"x", i + 1}});
  return out;
}

} // namespace

TEST(MultiDevice, ALostWorkersConfigurationGoesToTheOthers) {
  auto group = groupOf({0, 2, 0}, {0, 1, 2});
  std::vector<WorkerActivity> reported;
  group->onWorkerLost([&](const WorkerActivity &a) { reported.push_back(a); });
  std::vector<int> answered(12, 0);
  size_t byRank1 = 0;
  group->evaluateBatch({}, configs(12), [&](size_t i, EvalResult r) {
    ++answered[i];
    ASSERT_EQ(r.status, EvalStatus::Ok) << r.reason;
    EXPECT_EQ(r.time->medianUs, static_cast<double>(i + 1));
    byRank1 += r.rank == 1;
  });
  EXPECT_EQ(answered, std::vector<int>(12, 1));
  EXPECT_EQ(byRank1, 1u); // measured once, then lost on its second
  ASSERT_EQ(reported.size(), 1u);
  EXPECT_EQ(reported[0].rank, 1);
  EXPECT_EQ(reported[0].lostReason, "host gone");
  auto activity = group->activity();
  EXPECT_TRUE(activity[1].lost);
  EXPECT_EQ(activity[1].requeued, 1u);
  EXPECT_EQ(activity[1].evaluations, 1u);
  EXPECT_EQ(activity[0].evaluations + activity[1].evaluations +
                activity[2].evaluations,
            12u);
  // Later batches and single evaluations leave it out.
  group->evaluateBatch({}, configs(4), [&](size_t, EvalResult r) {
    EXPECT_EQ(r.status, EvalStatus::Ok);
  });
  EXPECT_EQ(group->evaluate({}, {{"x", 7}}).time->medianUs, 7.0);
  EXPECT_EQ(group->activity()[1].evaluations, 1u);
  std::string text = formatGpuActivity(group->activity(), 1.0);
  EXPECT_NE(text.find("rank 1 GPU 1: 1 evaluation(s), busy"), std::string::npos)
      << text;
  EXPECT_NE(text.find("lost (host gone), 1 configuration(s) in flight given "
                      "to the others"),
            std::string::npos)
      << text;
  EXPECT_EQ(formatGpuActivityBrief(group->activity()).find("GPUs 0.0:"), 0u);
  EXPECT_NE(formatGpuActivityBrief(group->activity()).find(" 1.1:lost "),
            std::string::npos);
}

// Across shapes, a worker keeps to the shape it has set up (a new shape
// costs a reference run) while that shape has work left.
TEST(MultiDevice, AcrossShapesEachWorkerKeepsToItsShape) {
  class ShapeSwitches : public Evaluator {
  public:
    explicit ShapeSwitches(int *switches) : Switches(switches) {}
    std::string device() const override { return "fake"; }
    std::string arch() const override { return "sm_90"; }
    EvalResult evaluate(const Shape &shape,
                        const Configuration &config) override {
      if (Last && *Last != shape)
        ++*Switches;
      Last = shape;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      EvalResult r;
      r.time = Timing{static_cast<double>(config.at("x")), 0, 1};
      return r;
    }

  private:
    int *Switches;
    std::optional<Shape> Last;
  };
  int switches[2] = {0, 0};
  std::vector<std::unique_ptr<Evaluator>> workers;
  for (int &s : switches)
    workers.push_back(std::make_unique<ShapeSwitches>(&s));
  auto group = DeviceGroup::create(std::move(workers), {0, 1});
  ASSERT_TRUE(group) << group.error().str();
  // The shapes' configurations interleaved: a worker taking the next one
  // in order would change shape at nearly every step.
  std::vector<Evaluator::ShapedConfig> tasks;
  for (int i = 1; i <= 8; ++i)
    for (int64_t n : {0, 1})
      tasks.push_back({Shape{{"n", n}}, Configuration{{"x", i}}});
  std::vector<int> answered(tasks.size(), 0);
  (*group)->evaluateAcrossShapes(tasks, [&](size_t i, EvalResult r) {
    ++answered[i];
    ASSERT_EQ(r.status, EvalStatus::Ok);
    EXPECT_EQ(r.time->medianUs, static_cast<double>(tasks[i].config.at("x")));
  });
  EXPECT_EQ(answered, std::vector<int>(tasks.size(), 1));
  // At most once each: to the other shape's last configurations.
  EXPECT_LE(switches[0], 1);
  EXPECT_LE(switches[1], 1);
}

// Re-timing jobs start costliest first: a long one started last would
// leave one device working alone at the end.
TEST(MultiDevice, CostliestRetimingsStartFirst) {
  class Recorder : public Evaluator {
  public:
    explicit Recorder(std::vector<int64_t> *order) : Order(order) {}
    std::string device() const override { return "fake"; }
    std::string arch() const override { return "sm_90"; }
    EvalResult evaluate(const Shape &, const Configuration &) override {
      return {};
    }
    std::vector<EvalResult>
    retime(const Shape &shape,
           const std::vector<Configuration> &configs) override {
      Order->push_back(shape.at("n"));
      return std::vector<EvalResult>(configs.size());
    }

  private:
    std::vector<int64_t> *Order;
  };
  std::vector<int64_t> order;
  std::vector<std::unique_ptr<Evaluator>> workers;
  workers.push_back(std::make_unique<Recorder>(&order));
  auto group = DeviceGroup::create(std::move(workers), {0});
  ASSERT_TRUE(group) << group.error().str();
  std::vector<Evaluator::RetimeJob> jobs;
  for (auto [n, cost] : {std::pair<int64_t, double>{0, 1.0},
                         {1, 30.0},
                         {2, 5.0},
                         {3, 30.0},
                         {4, 0.0}})
    jobs.push_back({Shape{{"n", n}}, configs(2), cost});
  auto out = (*group)->retimeShapes(jobs);
  ASSERT_EQ(out.size(), jobs.size());
  EXPECT_EQ(order, (std::vector<int64_t>{1, 3, 2, 0, 4}));
  // One GPU has none to spare: nothing is re-timed aside.
  EXPECT_FALSE((*group)->retimeAside(jobs[0]));
  EXPECT_TRUE((*group)->collectAside().empty());
}

TEST(MultiDevice, EveryWorkerLostIsAnErrorForWhatIsLeft) {
  auto group = groupOf({1, 1});
  size_t errors = 0;
  group->evaluateBatch({}, configs(3), [&](size_t, EvalResult r) {
    EXPECT_EQ(r.status, EvalStatus::RuntimeError);
    EXPECT_EQ(r.reason, "every worker was lost");
    ++errors;
  });
  EXPECT_EQ(errors, 3u);
  EXPECT_EQ(group->evaluate({}, {{"x", 1}}).reason, "every worker was lost");
  EXPECT_EQ(group->retime({}, configs(2)).size(), 2u);
}

TEST(MultiDevice, TheJournalRecordsTheRankAcrossHosts) {
  JournalEntry e;
  e.key.kernel = "k";
  e.result.gpu = 1;
  e.result.rank = 2;
  nlohmann::json j = journalEntryToJson(e);
  EXPECT_EQ(j["gpu"], 1);
  EXPECT_EQ(j["rank"], 2);
  auto back = journalEntryFromJson(j, "x");
  ASSERT_TRUE(back) << back.error().str();
  EXPECT_EQ(back->result.rank, 2);
  e.result.rank = -1; // one host: no rank written
  EXPECT_FALSE(journalEntryToJson(e).contains("rank"));
}

// The finalists of several shapes are re-timed at once, a shape per worker,
// each shape's configurations on one worker; a lost worker's shape goes to
// another.
TEST(MultiDevice, ShapesAreRetimedAShapePerWorker) {
  for (int lostOn : {0, 2}) {
    auto group = groupOf({0, lostOn});
    std::vector<Evaluator::RetimeJob> jobs;
    for (int64_t s = 0; s < 12; ++s)
      jobs.push_back({Shape{{"n", s}}, configs(3)});
    auto out = group->retimeShapes(jobs);
    ASSERT_EQ(out.size(), jobs.size());
    for (const auto &shape : out) {
      ASSERT_EQ(shape.size(), 3u);
      for (size_t k = 0; k < shape.size(); ++k) {
        ASSERT_EQ(shape[k].status, EvalStatus::Ok) << shape[k].reason;
        EXPECT_EQ(shape[k].time->medianUs, static_cast<double>(k + 1));
        EXPECT_EQ(shape[k].gpu, shape[0].gpu); // like with like
      }
    }
    auto activity = group->activity();
    if (lostOn) {
      EXPECT_TRUE(activity[1].lost);
    } else {
      EXPECT_GT(activity[1].evaluations, 0u); // both took shapes
      EXPECT_EQ(activity[0].evaluations + activity[1].evaluations, 36u);
    }
  }
}

// Across hosts only rank 0's GPUs re-time: another rank's worker evaluates
// one configuration per call, no interleaving.
TEST(MultiDevice, OnlyThisHostsWorkersRetime) {
  auto group = groupOf({0, 0}, {0, 1});
  std::vector<Evaluator::RetimeJob> jobs;
  for (int64_t s = 0; s < 4; ++s)
    jobs.push_back({Shape{{"n", s}}, configs(2)});
  auto out = group->retimeShapes(jobs);
  ASSERT_EQ(out.size(), jobs.size());
  for (const auto &shape : out)
    for (const auto &r : shape) {
      EXPECT_EQ(r.status, EvalStatus::Ok);
      EXPECT_EQ(r.rank, 0);
    }
  EXPECT_EQ(group->activity()[1].evaluations, 0u);
}
