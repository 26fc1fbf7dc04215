#include "ktune/Cuda/Ncu.h"
#include "ktune/Cuda/WorkerProcess.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

using namespace ktune;

namespace {

// The shape of `ncu --csv --page raw` output: progress lines, a header, a
// units row, one row per launch (other columns left out).
const char *Header =
    R"("ID","Kernel Name","Block Size","dram__bytes_read.sum","dram__bytes_write.sum",)"
    R"("dram__throughput.avg.pct_of_peak_sustained_elapsed","gpu__time_duration.sum",)"
    R"("launch__registers_per_thread","sm__maximum_warps_per_active_cycle_pct",)"
    R"("sm__warps_active.avg.pct_of_peak_sustained_active")"
    "\n"
    R"("","","","byte","byte","%","ns","register/thread","%","%")"
    "\n";

std::string row(int id, const std::string &kernel, const std::string &read,
                const std::string &write, const std::string &throughput,
                const std::string &ns, int registers,
                const std::string &theoretical, const std::string &achieved) {
  return "\"" + std::to_string(id) + "\",\"" + kernel +
         "\",\"(256, 1, 1)\",\"" + read + "\",\"" + write + "\",\"" +
         throughput + "\",\"" + ns + "\",\"" + std::to_string(registers) +
         "\",\"" + theoretical + "\",\"" + achieved + "\"\n";
}

std::string marker(int id) {
  return row(id, "ktune_profile_marker", "0", "0", "0", "1,024", 2, "50",
             "0.5");
}

} // namespace

TEST(Ncu, RowsAfterEachMarkerAreOneConfiguration) {
  std::string log = "==PROF== Connected to process 628 (ktune-worker)\n";
  log += Header;
  log += marker(0);
  log += row(1, "void scale<float, 128>(float *, const float *, int)",
             "67,117,312", "50,849,792", "59.84", "58,848", 16, "100", "72.68");
  log += marker(2);
  // A launcher launching two kernels: bytes and durations add, percentages
  // are weighted by duration, the registers are the largest kernel's.
  log += row(3, "void first<float>(float *)", "1,000,000", "0", "40", "1,000",
             32, "50", "40");
  log += row(4, "void second<float>(float *)", "3,000,000", "2,000,000", "80",
             "3,000", 40, "100", "80");
  log += "==PROF== Disconnected from process 628\n";

  auto counters = countersFromNcuLog(log);
  ASSERT_TRUE(counters) << counters.error().str();
  ASSERT_EQ(counters->size(), 2u);
  const HardwareCounters &one = (*counters)[0];
  EXPECT_EQ(one.launches, 1);
  EXPECT_DOUBLE_EQ(one.dramReadBytes, 67117312);
  EXPECT_DOUBLE_EQ(one.dramWriteBytes, 50849792);
  EXPECT_DOUBLE_EQ(one.dramThroughputPct, 59.84);
  EXPECT_DOUBLE_EQ(one.durationUs, 58.848);
  EXPECT_DOUBLE_EQ(one.achievedOccupancyPct, 72.68);
  EXPECT_DOUBLE_EQ(one.theoreticalOccupancyPct, 100);
  EXPECT_EQ(one.registers, 16);

  const HardwareCounters &two = (*counters)[1];
  EXPECT_EQ(two.launches, 2);
  EXPECT_DOUBLE_EQ(two.dramReadBytes, 4e6);
  EXPECT_DOUBLE_EQ(two.dramWriteBytes, 2e6);
  EXPECT_DOUBLE_EQ(two.durationUs, 4.0);
  EXPECT_NEAR(two.dramThroughputPct, (40 * 1 + 80 * 3) / 4.0, 1e-9);
  EXPECT_NEAR(two.achievedOccupancyPct, (40 * 1 + 80 * 3) / 4.0, 1e-9);
  EXPECT_NEAR(two.theoreticalOccupancyPct, (50 * 1 + 100 * 3) / 4.0, 1e-9);
  EXPECT_EQ(two.registers, 40);
}

TEST(Ncu, AConfigurationThatLaunchedNothingHasNoCounters) {
  std::string log = std::string(Header) + marker(0) + marker(1) +
                    row(2, "k", "10", "20", "1", "2,000", 8, "100", "50");
  auto counters = countersFromNcuLog(log);
  ASSERT_TRUE(counters) << counters.error().str();
  ASSERT_EQ(counters->size(), 2u);
  EXPECT_EQ((*counters)[0].launches, 0);
  EXPECT_LT((*counters)[0].dramReadBytes, 0);
  EXPECT_LT((*counters)[0].achievedOccupancyPct, 0);
  EXPECT_EQ((*counters)[1].launches, 1);
}

TEST(Ncu, ALogWithoutMeasurementsSaysWhy) {
  auto denied = countersFromNcuLog(
      "==PROF== Connected to process 1 (ktune-worker)\n"
      "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to "
      "access NVIDIA GPU Performance Counters on the target device 0.\n");
  ASSERT_FALSE(denied);
  EXPECT_NE(denied.error().message.find("ERR_NVGPUCTRPERM"), std::string::npos)
      << denied.error().message;

  auto empty = countersFromNcuLog("");
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().message.find("no CSV"), std::string::npos);
}

TEST(Ncu, MissingMetricOrLaunchBeforeMarkerIsAnError) {
  auto missing = countersFromNcuLog("\"ID\",\"Kernel Name\"\n\"0\",\"k\"\n");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("dram__bytes_read.sum"),
            std::string::npos);

  auto early = countersFromNcuLog(std::string(Header) +
                                  row(0, "k", "1", "1", "1", "1", 8, "1", "1"));
  ASSERT_FALSE(early);
  EXPECT_NE(early.error().message.find("before the first marker"),
            std::string::npos);
}

TEST(Ncu, CommandProfilesOnlyWhatTheWorkerAsksFor) {
  auto argv = ncuCommand("/opt/ncu", "/tmp/x.csv");
  ASSERT_FALSE(argv.empty());
  EXPECT_EQ(argv.front(), "/opt/ncu");
  auto after = [&](const std::string &flag) {
    auto it = std::find(argv.begin(), argv.end(), flag);
    return it != argv.end() && it + 1 != argv.end() ? *(it + 1)
                                                    : std::string("-");
  };
  EXPECT_EQ(after("--profile-from-start"), "off");
  EXPECT_EQ(after("--log-file"), "/tmp/x.csv");
  EXPECT_EQ(after("--page"), "raw");
  EXPECT_NE(after("--metrics").find("sm__warps_active"), std::string::npos);
}

TEST(Ncu, KtuneNcuMustNameAnExecutable) {
  ::setenv("KTUNE_NCU", "/nonexistent/ncu", 1);
  auto missing = findNsightCompute();
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("KTUNE_NCU"), std::string::npos);
  ::setenv("KTUNE_NCU", "/bin/sh", 1);
  auto found = findNsightCompute();
  ::unsetenv("KTUNE_NCU");
  ASSERT_TRUE(found) << found.error().str();
  EXPECT_EQ(*found, "/bin/sh");
}

TEST(Ncu, FinishingAWorkerWaitsForItToExit) {
  auto w = WorkerProcess::start(KTUNE_FAKE_WORKER, {"echo"});
  ASSERT_TRUE(w) << w.error().str();
  ExitStatus s = (*w)->finish(nlohmann::json{{"op", "quit"}}, 10);
  EXPECT_EQ(s.exitCode, 0) << s.describe();
  EXPECT_FALSE(s.timedOut);
  EXPECT_FALSE((*w)->running());
}

TEST(Ncu, FinishingAHungWorkerKillsItAtTheDeadline) {
  auto w = WorkerProcess::start(KTUNE_FAKE_WORKER, {"hang"});
  ASSERT_TRUE(w) << w.error().str();
  ASSERT_EQ((*w)->request(nlohmann::json{{"op", "first"}}, 10).kind,
            WorkerProcess::Outcome::Kind::Reply);
  ExitStatus s = (*w)->finish(nlohmann::json{{"op", "quit"}}, 1);
  EXPECT_TRUE(s.timedOut || s.signal != 0) << s.describe();
  EXPECT_FALSE((*w)->running());
}
