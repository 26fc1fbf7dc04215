#include "ktune/Target/Occupancy.h"
#include "ktune/Target/DeviceLimits.h"
#include "ktune/Target/Pruning.h"

#include <gtest/gtest.h>

using namespace ktune;

static DeviceLimits limitsOf(const char *arch) {
  auto l = staticDeviceLimits(arch);
  EXPECT_TRUE(l) << (l ? "" : l.error().str());
  return *l;
}

// Expected values follow the CUDA occupancy calculator's rules: registers
// per warp rounded up to 256 and shared per SM sub-partition, 1 KB of shared
// memory reserved per block and allocated in 128-byte units.
TEST(Occupancy, MatchesTheCalculatorOnHopper) {
  DeviceLimits h100 = limitsOf("sm_90");
  struct Case {
    int threads, regs;
    int64_t smemStatic, smemDynamic;
    int blocks;
    const char *limiter;
  } cases[] = {
      {256, 32, 0, 0, 8, "warps"},      // 100 % occupancy
      {128, 64, 0, 0, 8, "registers"},  // 64 regs: 32 warps, 50 %
      {1024, 64, 0, 0, 1, "registers"}, // 65536 registers exactly
      {1024, 65, 0, 0, 0, "registers"}, // too many resources
      {96, 168, 0, 0, 4, "registers"},  // 3 warps per sub-partition
      {32, 16, 0, 0, 32, "block slots"},
      {256, 16, 49152, 0, 4, "shared memory"}, // (48K + 1K) per block
      {256, 16, 0, 100 * 1024, 2, "shared memory"},
      {256, 16, 0, 227 * 1024, 1, "shared memory"},
      {256, 16, 0, 227 * 1024 + 1, 0, "shared memory"},
  };
  for (const auto &c : cases) {
    Occupancy o = computeOccupancy(
        h100, {c.threads, c.regs, c.smemStatic, c.smemDynamic, 0});
    EXPECT_EQ(o.blocksPerSM, c.blocks)
        << c.threads << " threads, " << c.regs << " regs, smem " << c.smemStatic
        << "+" << c.smemDynamic;
    if (c.blocks > 0) {
      EXPECT_EQ(o.limiter, c.limiter) << c.threads << " threads, " << c.regs;
    }
  }
  Occupancy half = computeOccupancy(h100, {128, 64, 0, 0, 0});
  EXPECT_DOUBLE_EQ(half.warpOccupancy, 0.5);
}

TEST(Occupancy, UsesEachArchitecturesLimits) {
  // sm_86: 48 warp slots and 16 block slots per SM.
  Occupancy o = computeOccupancy(limitsOf("sm_86"), {256, 32, 0, 0, 0});
  EXPECT_EQ(o.blocksPerSM, 6);
  EXPECT_EQ(o.limiter, "warps");
  o = computeOccupancy(limitsOf("sm_86"), {32, 16, 0, 0, 0});
  EXPECT_EQ(o.blocksPerSM, 16);
  // 64 KB of shared memory fits once on sm_86 (100 KB per SM), twice
  // on sm_80 (164 KB).
  EXPECT_EQ(computeOccupancy(limitsOf("sm_86"), {128, 32, 0, 64 * 1024, 0})
                .blocksPerSM,
            1);
  EXPECT_EQ(computeOccupancy(limitsOf("sm_80"), {128, 32, 0, 64 * 1024, 0})
                .blocksPerSM,
            2);
}

TEST(Occupancy, ZeroForImpossibleBlocks) {
  DeviceLimits h100 = limitsOf("sm_90");
  EXPECT_EQ(computeOccupancy(h100, {2048, 16, 0, 0, 0}).blocksPerSM, 0);
  EXPECT_EQ(computeOccupancy(h100, {0, 16, 0, 0, 0}).blocksPerSM, 0);
}

TEST(Pruning, GeometryLimits) {
  DeviceLimits h100 = limitsOf("sm_90");
  LaunchDims ok{{128, 1, 1}, {256, 1, 1}, 0};
  EXPECT_FALSE(geometryPruneReason(h100, ok));

  LaunchDims tooManyThreads{{1, 1, 1}, {2048, 1, 1}, 0};
  auto why = geometryPruneReason(h100, tooManyThreads);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("block.x = 2048"), std::string::npos) << *why;

  LaunchDims product{{1, 1, 1}, {64, 32, 1}, 0};
  why = geometryPruneReason(h100, product);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("threads per block 2048"), std::string::npos) << *why;

  LaunchDims deep{{1, 1, 1}, {1, 1, 128}, 0};
  EXPECT_TRUE(geometryPruneReason(h100, deep));
  LaunchDims tallGrid{{1, 70000, 1}, {32, 1, 1}, 0};
  EXPECT_TRUE(geometryPruneReason(h100, tallGrid));
  LaunchDims empty{{0, 1, 1}, {32, 1, 1}, 0};
  EXPECT_TRUE(geometryPruneReason(h100, empty));
  LaunchDims bigSmem{{1, 1, 1}, {32, 1, 1}, 300000};
  why = geometryPruneReason(h100, bigSmem);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("dynamic shared memory"), std::string::npos);
}

TEST(Pruning, CompiledResources) {
  DeviceLimits h100 = limitsOf("sm_90");
  LaunchDims block1024{{1, 1, 1}, {1024, 1, 1}, 0};
  EXPECT_FALSE(resourcePruneReason(h100, block1024, 64, 0));
  auto why = resourcePruneReason(h100, block1024, 65, 0);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("65 registers"), std::string::npos) << *why;

  LaunchDims withSmem{{1, 1, 1}, {256, 1, 1}, 200 * 1024};
  why = resourcePruneReason(h100, withSmem, 32, 48 * 1024);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("shared memory"), std::string::npos) << *why;
  EXPECT_FALSE(resourcePruneReason(h100, withSmem, 32, 16 * 1024));
  // The same launch does not fit on sm_86.
  EXPECT_TRUE(resourcePruneReason(limitsOf("sm_86"), withSmem, 32, 16 * 1024));
}

TEST(DeviceInfo, StaticTableAndArchNames) {
  for (const auto &arch : staticArchs()) {
    auto l = staticDeviceLimits(arch);
    ASSERT_TRUE(l) << arch;
    EXPECT_EQ(l->arch, arch);
    EXPECT_FALSE(l->fromDevice);
    EXPECT_GT(l->smemPerBlockOptin, l->smemPerBlock);
    EXPECT_GE(l->smemPerSM, l->smemPerBlockOptin);
    EXPECT_EQ(l->regsPerSM, 65536);
  }
  auto a = staticDeviceLimits("sm_90a");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->arch, "sm_90");
  EXPECT_EQ(a->smemPerBlockOptin, 227 * 1024);
  EXPECT_FALSE(staticDeviceLimits("sm_75"));
  EXPECT_FALSE(staticDeviceLimits("volta"));
  auto cc = parseArch("compute_100");
  ASSERT_TRUE(cc);
  EXPECT_EQ((*cc)[0], 10);
  EXPECT_EQ((*cc)[1], 0);
  EXPECT_EQ(archForComputeCapability(8, 9), "sm_89");
}

TEST(DeviceInfo, JsonRoundTrip) {
  DeviceLimits l = *staticDeviceLimits("sm_89");
  l.totalMemory = 123456789;
  auto back = deviceLimitsFromJson(deviceLimitsToJson(l));
  ASSERT_TRUE(back);
  EXPECT_EQ(deviceLimitsToJson(*back), deviceLimitsToJson(l));
  EXPECT_FALSE(deviceLimitsFromJson(nlohmann::json{{"name", "x"}}));
}
