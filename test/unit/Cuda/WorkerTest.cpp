#include "ktune/Cuda/TimingStats.h"
#include "ktune/Cuda/WorkerProcess.h"
#include "ktune/Cuda/WorkerProtocol.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>

using namespace ktune;
using nlohmann::json;
using Kind = WorkerProcess::Outcome::Kind;

static std::unique_ptr<WorkerProcess> fake(const std::string &mode) {
  auto w = WorkerProcess::start(KTUNE_FAKE_WORKER, {mode});
  EXPECT_TRUE(w) << (w ? "" : w.error().str());
  return w ? std::move(*w) : nullptr;
}

/// A fake worker in `mode`: it answers the first request and dies on the
/// second, which reports `why`. Null when it does not start.
static std::unique_ptr<WorkerProcess>
diesOnSecondRequest(const std::string &mode, const std::string &why) {
  auto w = fake(mode);
  if (!w)
    return nullptr;
  EXPECT_EQ(w->request(json{{"op", "first"}}, 10).kind, Kind::Reply);
  auto o = w->request(json{{"op", "second"}}, 10);
  EXPECT_EQ(o.kind, Kind::Died);
  EXPECT_NE(o.detail.find(why), std::string::npos) << o.detail;
  return w;
}

TEST(WorkerProcess, ExchangesManyMessages) {
  auto w = fake("echo");
  ASSERT_TRUE(w);
  for (int i = 0; i < 200; ++i) {
    auto o = w->request(json{{"op", "ping"}, {"i", i}}, 10);
    ASSERT_EQ(o.kind, Kind::Reply) << o.detail;
    EXPECT_EQ(o.reply["echo"]["i"], i);
  }
  std::string big(2 << 20, 'x');
  auto o = w->request(json{{"blob", big}}, 10);
  ASSERT_EQ(o.kind, Kind::Reply) << o.detail;
  EXPECT_EQ(o.reply["echo"]["blob"].get<std::string>().size(), big.size());
}

TEST(WorkerProcess, WatchdogKillsAHungWorker) {
  auto w = fake("hang");
  ASSERT_TRUE(w);
  EXPECT_EQ(w->request(json{{"op", "first"}}, 10).kind, Kind::Reply);
  auto start = std::chrono::steady_clock::now();
  auto o = w->request(json{{"op", "second"}}, 0.5);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  EXPECT_EQ(o.kind, Kind::Timeout);
  EXPECT_GE(seconds, 0.45);
  EXPECT_LT(seconds, 5.0);
  EXPECT_FALSE(w->running());
  // A dead worker answers nothing, at once.
  EXPECT_EQ(w->request(json{{"op", "third"}}, 10).kind, Kind::Died);
}

TEST(WorkerProcess, ReportsACrash) {
  auto w = diesOnSecondRequest("crash", "signal 6");
  ASSERT_TRUE(w);
  EXPECT_FALSE(w->running());
}

TEST(WorkerProcess, ReportsAnExitWithoutReply) {
  auto w = diesOnSecondRequest("exit", "exited with status 0");
  ASSERT_TRUE(w);
}

TEST(WorkerProcess, DropsAWorkerThatSendsGarbage) {
  auto w = diesOnSecondRequest("garbage", "malformed");
  ASSERT_TRUE(w);
  EXPECT_FALSE(w->running());
}

TEST(WorkerProcess, MissingExecutableIsAnError) {
  auto w = WorkerProcess::start("/nonexistent/ktune-worker");
  ASSERT_FALSE(w);
  EXPECT_NE(w.error().message.find("cannot start"), std::string::npos);
}

TEST(WorkerProtocol, RoundTrips) {
  using namespace protocol;
  EXPECT_EQ(*hexDecode(hexEncode(std::string("\x00\x01\xfe\xff", 4))),
            std::string("\x00\x01\xfe\xff", 4));
  EXPECT_FALSE(hexDecode("abc"));
  EXPECT_FALSE(hexDecode("zz"));

  BufferSpec b{"out", DType::BF16, 1000, Role::InOut, 1, -2, 2, 42, 1e-2, 1e-3};
  auto b2 = bufferSpecFromJson(toJson(b));
  ASSERT_TRUE(b2);
  EXPECT_EQ(toJson(*b2), toJson(b));

  Launch l;
  l.dims = LaunchDims{{4, 2, 1}, {128, 1, 1}, 4096};
  l.args = {{0, ""}, {-1, std::string("\x10\x00\x00\x00", 4)}};
  auto l2 = launchFromJson(toJson(l));
  ASSERT_TRUE(l2);
  EXPECT_EQ(l2->dims.grid, l.dims.grid);
  EXPECT_EQ(l2->dims.smemDynamic, 4096);
  EXPECT_EQ(l2->args[1].bytes, l.args[1].bytes);

  BufferCheck c;
  c.name = "out";
  c.mismatches = 3;
  c.got = std::nan("");
  c.want = -std::numeric_limits<double>::infinity();
  auto c2 = bufferCheckFromJson(toJson(c));
  ASSERT_TRUE(c2);
  EXPECT_TRUE(std::isnan(c2->got));
  EXPECT_TRUE(std::isinf(c2->want) && c2->want < 0);

  EXPECT_FALSE(bufferSpecFromJson(json{{"name", "x"}}));
}

TEST(TimingStats, QuartilesAndStoppingRule) {
  SampleSummary s = summarize({5, 1, 4, 2, 3});
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.q25, 2);
  EXPECT_DOUBLE_EQ(s.q75, 4);
  EXPECT_DOUBLE_EQ(s.relativeIqr(), 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(summarize({1, 2, 3, 4}).median, 2.5);
  EXPECT_EQ(summarize({}).count, 0u);

  StoppingRule rule;
  rule.minReps = 10;
  rule.maxReps = 100;
  rule.maxSeconds = 1.0;
  rule.targetRelIqr = 0.02;
  std::vector<double> stable(10, 100.0);
  EXPECT_TRUE(rule.done(stable, 0.1));
  std::vector<double> few(5, 100.0);
  EXPECT_FALSE(rule.done(few, 0.1));
  std::vector<double> noisy;
  for (int i = 0; i < 20; ++i)
    noisy.push_back(i % 2 ? 100.0 : 120.0);
  EXPECT_FALSE(rule.done(noisy, 0.1));
  // Launches that vary by 20 % still pin the median down given enough of
  // them: 1.57 * 20 / sqrt(n) <= 2.2 from n = 204 on.
  std::vector<double> many;
  for (int i = 0; i < 200; ++i)
    many.push_back(i % 2 ? 100.0 : 120.0);
  rule.maxReps = 10000;
  EXPECT_FALSE(rule.done(many, 0.1));
  for (int i = 0; i < 10; ++i)
    many.push_back(i % 2 ? 100.0 : 120.0);
  EXPECT_TRUE(rule.done(many, 0.1));
  rule.maxReps = 100;
  EXPECT_TRUE(rule.done(noisy, 1.5));                       // time cap
  EXPECT_TRUE(rule.done(std::vector<double>(100, 1.0), 0)); // rep cap
}
