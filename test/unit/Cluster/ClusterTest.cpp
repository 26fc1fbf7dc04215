// A run across hosts within one process: each rank a thread, MPI's one
// broadcast played by a shared string, the work over loopback TCP.
#include "ktune/Cluster/Cluster.h"
#include "../Tune/TempDir.h"
#include "ktune/Tune/Journal.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <fstream>
#include <set>
#include <thread>

using namespace ktune;
using namespace ktune::cluster;
using namespace ktune::testing;
using nlohmann::json;

namespace {

/// A recorded space written for these tests: 8 x 8 configurations, the
/// fastest at x=5, y=3.
void writeRecording(const std::string &path) {
  json results = json::array();
  for (int x = 1; x <= 8; ++x)
    for (int y = 1; y <= 8; ++y)
      results.push_back({{"configuration", {{"x", x}, {"y", y}}},
                         {"invalidity", "correct"},
                         {"measurements",
                          json::array({{{"name", "time"},
                                        {"value", 1.0 + 0.1 * std::abs(x - 5) +
                                                      0.05 * std::abs(y - 3)},
                                        {"unit", "ms"}}})}});
  spit(path,
       json{{"results", results}, {"metadata", {{"timeunit", "milliseconds"}}}}
           .dump());
}

/// MPI's broadcast between threads.
class SharedText {
public:
  ClusterWorld world(int rank, int size) {
    ClusterWorld w;
    w.rank = rank;
    w.size = size;
    w.shareFromRoot = [this, rank](const std::string &text) {
      std::unique_lock<std::mutex> guard(Lock);
      if (rank == 0) {
        Text = text;
        Ready.notify_all();
      }
      Ready.wait(guard, [&] { return Text.has_value(); });
      return Expected<std::string>(*Text);
    };
    return w;
  }

private:
  std::mutex Lock;
  std::condition_variable Ready;
  std::optional<std::string> Text;
};

struct Lines {
  std::mutex Lock;
  std::vector<std::string> All;
  Log log() {
    return [this](const std::string &line) {
      std::lock_guard<std::mutex> guard(Lock);
      All.push_back(line);
    };
  }
  bool has(const std::string &text) {
    std::lock_guard<std::mutex> guard(Lock);
    for (const auto &l : All)
      if (l.find(text) != std::string::npos)
        return true;
    return false;
  }
};

ClusterOptions fastOptions() {
  ClusterOptions o;
  o.heartbeatSeconds = 0.2;
  o.silenceSeconds = 1.5;
  o.joinSeconds = 10;
  return o;
}

TuneCommand commandFor(const TempDir &dir, uint64_t budget) {
  TuneCommand cmd;
  cmd.simulatePath = dir.file("space_T4.json");
  cmd.simulateDevices = 2;
  cmd.simulateDelayMs = 5;
  cmd.strategy = "random";
  cmd.seed = 7;
  cmd.budget = budget;
  cmd.outPath = dir.file("results.json");
  return cmd;
}

std::vector<json> journalOf(const std::string &path) {
  std::vector<json> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    out.push_back(json::parse(line));
  return out;
}

/// How a rank joins: its hello, with what rank 0 expects of it.
json helloFrom(const Invitation &zero, const std::string &host,
               const RankWorkers &self, std::vector<int> gpus) {
  return {{"type", "hello"},
          {"token", zero.token},
          {"rank", 1},
          {"host", host},
          {"device", self.self.device},
          {"arch", self.self.arch},
          {"inputs", self.self.inputsSha256},
          {"gpus", gpus}};
}

} // namespace

TEST(Wire, MessagesArriveWholeAndAClosedPeerIsAnError) {
  auto listener = Listener::open();
  ASSERT_TRUE(listener) << listener.error().str();
  std::string address = "127.0.0.1:" + std::to_string((*listener)->port());
  auto client = Connection::connect({"127.0.0.1:1", address}, 5);
  ASSERT_TRUE(client) << client.error().str();
  auto server = (*listener)->accept(5);
  ASSERT_TRUE(server && *server);
  json big = {{"type", "x"}, {"text", std::string(200000, 'a')}};
  ASSERT_TRUE((*client)->send(big));
  ASSERT_TRUE((*client)->send({{"type", "y"}}));
  auto first = (*server)->receive(5);
  ASSERT_TRUE(first && *first);
  EXPECT_EQ(**first, big);
  auto second = (*server)->receive(5);
  ASSERT_TRUE(second && *second);
  EXPECT_EQ((**second)["type"], "y");
  auto none = (*server)->receive(0.05);
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none); // nothing within the time: not an error
  client->reset();
  auto closed = (*server)->receive(5);
  ASSERT_FALSE(closed);
  EXPECT_NE(closed.error().message.find("closed the connection"),
            std::string::npos);
  auto nobody = Connection::connect({"127.0.0.1:1"}, 0.3);
  EXPECT_FALSE(nobody);
}

TEST(Cluster, ThreeRanksTuneOneSearchAndJournalTheirRanks) {
  TempDir dir;
  writeRecording(dir.file("space_T4.json"));
  SharedText shared;
  Lines lines;
  std::vector<std::thread> others;
  // Per rank: -1 failed, else whether it ends MPI with the others.
  std::vector<int> together(3, -1);
  for (int rank = 1; rank < 3; ++rank)
    others.emplace_back([&, rank] {
      // Rank 1 waits for rank 2 longer than a silence: rank 0 beats to it
      // while it waits.
      if (rank == 2)
        std::this_thread::sleep_for(std::chrono::seconds(2));
      auto out =
          runAcrossHosts(commandFor(dir, 64), nullptr, shared.world(rank, 3),
                         fastOptions(), lines.log());
      together[rank] = out ? out->finalizeTogether : -1;
    });
  auto outcome = runAcrossHosts(commandFor(dir, 64), nullptr,
                                shared.world(0, 3), fastOptions(), lines.log());
  for (auto &t : others)
    t.join();
  ASSERT_TRUE(outcome) << outcome.error().str();
  EXPECT_EQ(together, (std::vector<int>{-1, 1, 1}));
  EXPECT_TRUE(outcome->finalizeTogether);
  ASSERT_TRUE(outcome->report);
  EXPECT_TRUE(outcome->lost.empty());
  EXPECT_TRUE(lines.has("rank 1 (")) << "rank 1 did not join";
  EXPECT_EQ(outcome->report->gpuActivity.size(), 6u);
  std::set<std::pair<int, int>> devices;
  auto journal = journalOf(outcome->report->journalPath);
  for (const auto &l : journal)
    devices.insert({l.at("rank").get<int>(), l.at("gpu").get<int>()});
  EXPECT_EQ(devices.size(), 6u);
  // The whole space, once: the optimum found.
  EXPECT_EQ(outcome->report->results.shapes.at(0).evaluations, 64u);
  EXPECT_EQ(configText(outcome->report->results.shapes.at(0).bestConfig),
            "x=5 y=3");
}

TEST(Cluster, ARankThatDiesCostsOnlyItsConfigurationInFlight) {
  TempDir dir;
  writeRecording(dir.file("space_T4.json"));
  SharedText shared;
  Lines lines;
  // Rank 1 joins with what rank 0 expects, takes one configuration and
  // closes its connection instead of answering.
  std::thread dying([&] {
    auto world = shared.world(1, 2);
    auto text = world.shareFromRoot("");
    auto self = prepareRankWorkers(commandFor(dir, 30), nullptr);
    auto zero = Invitation::parse(*text);
    ASSERT_TRUE(text && self && zero);
    auto conn = Connection::connect(zero->addresses, 10);
    ASSERT_TRUE(conn);
    ASSERT_TRUE((*conn)->send(helloFrom(*zero, "elsewhere", *self, {0, 1})));
    for (;;) {
      auto m = (*conn)->receive(10);
      if (!m || !*m || (**m)["type"] == "eval")
        break;
    }
  });
  auto outcome = runAcrossHosts(commandFor(dir, 30), nullptr,
                                shared.world(0, 2), fastOptions(), lines.log());
  dying.join();
  ASSERT_TRUE(outcome) << outcome.error().str();
  ASSERT_EQ(outcome->lost.size(), 1u);
  EXPECT_EQ(outcome->lost[0].rank, 1);
  EXPECT_FALSE(outcome->lost[0].silent);
  EXPECT_FALSE(outcome->finalizeTogether) << "a rank lost: each leaves";
  EXPECT_TRUE(lines.has("rank 1 (elsewhere) lost: "));
  const auto &results = outcome->report->results.shapes.at(0);
  EXPECT_EQ(results.evaluations, 30u); // the budget, spent in full
  auto journal = journalOf(outcome->report->journalPath);
  std::set<std::string> keys;
  for (const auto &l : journal) {
    EXPECT_EQ(l.at("rank"), 0) << "nothing came back from rank 1";
    if (l["phase"] != "retime") {
      EXPECT_TRUE(keys.insert(l["key"].dump()).second) << "repeated";
    }
  }
  uint64_t requeued = 0;
  for (const auto &a : outcome->report->gpuActivity)
    if (a.rank == 1) {
      EXPECT_TRUE(a.lost);
      requeued += a.requeued;
    }
  EXPECT_GE(requeued, 1u);
}

TEST(Cluster, ASilentRankIsLostAfterItsSilence) {
  TempDir dir;
  writeRecording(dir.file("space_T4.json"));
  SharedText shared;
  Lines lines;
  std::atomic<bool> over{false};
  std::thread silent([&] {
    auto world = shared.world(1, 2);
    auto text = world.shareFromRoot("");
    auto self = prepareRankWorkers(commandFor(dir, 20), nullptr);
    auto zero = Invitation::parse(*text);
    ASSERT_TRUE(text && self && zero);
    auto conn = Connection::connect(zero->addresses, 10);
    ASSERT_TRUE(conn);
    ASSERT_TRUE((*conn)->send(helloFrom(*zero, "hung", *self, {0})));
    while (!over) // connected, never answering, never beating
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  });
  auto outcome = runAcrossHosts(commandFor(dir, 20), nullptr,
                                shared.world(0, 2), fastOptions(), lines.log());
  over = true;
  silent.join();
  ASSERT_TRUE(outcome) << outcome.error().str();
  ASSERT_EQ(outcome->lost.size(), 1u);
  EXPECT_TRUE(outcome->lost[0].silent);
  EXPECT_TRUE(lines.has("rank 1 (hung) lost: silent for 1 s"));
  EXPECT_EQ(outcome->report->results.shapes.at(0).evaluations, 20u);
}

TEST(Cluster, RanksThatDifferOrFailAreLeftOutWithTheReason) {
  TempDir dir;
  writeRecording(dir.file("space_T4.json"));
  writeRecording(dir.file("other_T4.json"));
  spit(dir.file("other_T4.json"), slurp(dir.file("other_T4.json")) + " ");
  SharedText shared;
  Lines lines;
  Status served[3];
  std::thread differs([&] {
    TuneCommand cmd = commandFor(dir, 10);
    cmd.simulatePath = dir.file("other_T4.json"); // another recording
    auto out = runAcrossHosts(cmd, nullptr, shared.world(1, 3), fastOptions(),
                              lines.log());
    served[1] = out ? Status() : Status(std::unexpected(out.error()));
  });
  std::thread fails([&] {
    TuneCommand cmd = commandFor(dir, 10);
    cmd.simulatePath = dir.file("missing_T4.json");
    auto out = runAcrossHosts(cmd, nullptr, shared.world(2, 3), fastOptions(),
                              lines.log());
    served[2] = out ? Status() : Status(std::unexpected(out.error()));
  });
  auto outcome = runAcrossHosts(commandFor(dir, 10), nullptr,
                                shared.world(0, 3), fastOptions(), lines.log());
  differs.join();
  fails.join();
  ASSERT_TRUE(outcome) << outcome.error().str();
  ASSERT_FALSE(served[1]);
  EXPECT_NE(served[1].error().message.find("rank 0 left this rank out: its "
                                           "template, manifest or spec"),
            std::string::npos)
      << served[1].error().str();
  EXPECT_FALSE(served[2]);
  EXPECT_TRUE(lines.has("left out: it could not set up its GPUs: "));
  EXPECT_EQ(outcome->lost.size(), 2u);
  EXPECT_EQ(outcome->report->gpuActivity.size(), 2u); // rank 0's own
  EXPECT_EQ(outcome->report->results.shapes.at(0).evaluations, 10u);
}

TEST(Cluster, ARankLosingRankZeroStops) {
  TempDir dir;
  writeRecording(dir.file("space_T4.json"));
  auto listener = Listener::open();
  ASSERT_TRUE(listener);
  std::thread rankZero([&] {
    auto conn = (*listener)->accept(10);
    ASSERT_TRUE(conn && *conn);
    auto hello = (*conn)->receive(10);
    ASSERT_TRUE(hello && *hello);
    EXPECT_EQ((**hello)["rank"], 1);
    EXPECT_EQ((**hello)["gpus"], json({0, 1}));
    ASSERT_TRUE((*conn)->send({{"type", "welcome"}}));
  }); // and gone
  auto workers = prepareRankWorkers(commandFor(dir, 10), nullptr);
  ASSERT_TRUE(workers) << workers.error().str();
  Lines lines;
  Invitation zero{{"127.0.0.1:" + std::to_string((*listener)->port())}, "t"};
  auto served =
      serveRank(zero, 1, std::move(*workers), fastOptions(), lines.log());
  rankZero.join();
  ASSERT_FALSE(served);
  EXPECT_NE(served.error().message.find("lost rank 0: "), std::string::npos)
      << served.error().str();
}

TEST(Cluster, AHelloWithoutTheRunsTokenIsNotARank) {
  TempDir dir;
  writeRecording(dir.file("space_T4.json"));
  SharedText shared;
  Lines lines;
  Expected<bool> served = false;
  std::thread ranks([&] {
    auto world = shared.world(1, 2);
    auto text = world.shareFromRoot("");
    auto self = prepareRankWorkers(commandFor(dir, 10), nullptr);
    auto zero = Invitation::parse(*text);
    ASSERT_TRUE(text && self && zero);
    // First a process that reached the port without the token...
    Invitation stranger = *zero;
    stranger.token = "guessed";
    auto conn = Connection::connect(zero->addresses, 10);
    ASSERT_TRUE(conn);
    ASSERT_TRUE((*conn)->send(helloFrom(stranger, "stranger", *self, {0})));
    auto answer = (*conn)->receive(10);
    EXPECT_FALSE(answer) << "it was answered";
    // ...then the real rank 1.
    served = serveRank(*zero, 1, std::move(*self), fastOptions(), lines.log());
  });
  auto outcome = runAcrossHosts(commandFor(dir, 10), nullptr,
                                shared.world(0, 2), fastOptions(), lines.log());
  ranks.join();
  ASSERT_TRUE(outcome) << outcome.error().str();
  ASSERT_TRUE(served) << served.error().str();
  EXPECT_TRUE(*served) << "all there: MPI ends together";
  EXPECT_TRUE(outcome->finalizeTogether);
  EXPECT_TRUE(outcome->lost.empty());
  EXPECT_EQ(outcome->report->gpuActivity.size(), 4u);
  EXPECT_FALSE(lines.has("stranger"));
  EXPECT_EQ(Invitation::parse("t@a:1,b:2")->addresses.size(), 2u);
  EXPECT_FALSE(Invitation::parse(""));   // rank 0 could not listen
  EXPECT_FALSE(Invitation::parse("t@")); // no address
}
