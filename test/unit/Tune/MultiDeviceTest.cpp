#include "ktune/Tune/MultiDevice.h"
#include "TempDir.h"
#include "ktune/Tune/Session.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

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

const std::string ConvolutionDir =
    std::string(KTUNE_SHARED_DATA_DIR) + "/t4/convolution/";

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
  cmd.outPath = dir + "/results.json";
  return runTuneSession(cmd, nullptr);
}

} // namespace

TEST(MultiDevice, OneDeviceWritesTheJournalOfToday) {
  if (!std::filesystem::exists(ConvolutionDir + "T1_input.json"))
    GTEST_SKIP() << "recorded data not found";
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
  if (!std::filesystem::exists(ConvolutionDir + "T1_input.json"))
    GTEST_SKIP() << "recorded data not found";
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
