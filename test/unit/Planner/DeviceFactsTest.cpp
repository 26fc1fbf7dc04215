// Device limits shown to planners, and the tuning summary of re-plan rounds.
#include "ktune/Planner/PlanWithValidation.h"
#include "ktune/Planner/Planner.h"

#include "PlannerTestSupport.h"

#include <gtest/gtest.h>

using namespace ktune;
using namespace ktune::planner;
using namespace ktune::planner::test;

TEST(DeviceFacts, DefaultsDescribeSm90) {
  DeviceLimits d = PlannerRequest().device;
  EXPECT_EQ(d.arch, "sm_90");
  EXPECT_EQ(d.maxThreadsPerBlock, 1024);
  EXPECT_EQ(d.smemPerBlock, 48 * 1024);
}

TEST(DeviceFacts, ReadsTheTunersDeviceLimitsJson) {
  // The shape ktune::deviceLimitsToJson writes, partial and with extra keys.
  nlohmann::json j = {{"name", "NVIDIA H200"},
                      {"arch", "sm_90"},
                      {"cc", {9, 0}},
                      {"from_device", true},
                      {"sm_count", 132},
                      {"max_threads_per_block", 1024},
                      {"max_block_dim", {1024, 1024, 64}},
                      {"regs_per_sm", 65536},
                      {"smem_per_block_optin", 232448},
                      {"l2_bytes", 52428800},
                      {"total_memory", 150000000000}};
  auto d = deviceLimitsFromJson(j, assumedDeviceLimits());
  ASSERT_TRUE(d) << d.error().str();
  EXPECT_EQ(d->name, "NVIDIA H200");
  EXPECT_EQ(d->smCount, 132);
  EXPECT_EQ(d->smemPerBlockOptin, 232448);
  auto again = deviceLimitsFromJson(deviceLimitsToJson(*d));
  ASSERT_TRUE(again);
  EXPECT_EQ(deviceLimitsToJson(*again), deviceLimitsToJson(*d));
}

TEST(DeviceFacts, WrongTypesAreErrorsNamingTheKey) {
  auto read = [](const nlohmann::json &j) {
    return deviceLimitsFromJson(j, assumedDeviceLimits());
  };
  auto d = read({{"sm_count", "many"}});
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().where, "sm_count");
  EXPECT_FALSE(read({{"max_threads_per_block", -1}}));
  EXPECT_FALSE(read(nlohmann::json::array()));
}

TEST(TuningSummary, TheDocumentedExampleIsValid) {
  auto j = readJsonFile((PlannerDir / "Inputs/tuning-summary.json").string());
  ASSERT_TRUE(j) << j.error().str();
  auto errors = checkTuningSummary(*j);
  EXPECT_TRUE(errors.empty()) << formatPlanErrors(errors);
}

TEST(TuningSummary, MistakesAreNamedByPath) {
  auto j = *readJsonFile((PlannerDir / "Inputs/tuning-summary.json").string());
  auto expectError = [](const nlohmann::json &s, const std::string &where) {
    auto errors = checkTuningSummary(s);
    bool found = false;
    for (const auto &e : errors)
      found |= e.where == where;
    EXPECT_TRUE(found) << "no error at " << where << " in\n"
                       << formatPlanErrors(errors);
  };
  auto bad = j;
  bad["ktune"] = "tuning-summary/9";
  expectError(bad, "ktune");
  bad = j;
  bad["kernels"][0]["edges_hit"][0]["edge"] = "top";
  expectError(bad, "kernels[0].edges_hit[0].edge");
  bad = j;
  bad["kernels"][0]["shapes"][0]["best"]["config"]["BLOCK_SIZE"] = "512";
  expectError(bad, "kernels[0].shapes[0].best.config.BLOCK_SIZE");
  bad = j;
  bad["kernels"][0].erase("kernel");
  expectError(bad, "kernels[0].kernel");
  bad = j;
  bad.erase("kernels");
  expectError(bad, "kernels");
  EXPECT_FALSE(checkTuningSummary(nlohmann::json::array()).empty());
}
