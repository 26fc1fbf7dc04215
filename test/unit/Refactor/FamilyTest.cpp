// Candidate families: the typed grouping hint and its --dump-facts spelling.
#include "ktune/Refactor/SourceFacts.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace ktune;
using namespace ktune::refactor;

TEST(Family, SpellingOfEachKind) {
  EXPECT_EQ(Family().str(), "");
  EXPECT_EQ(Family::block().str(), "block");
  EXPECT_EQ(Family::unlinked().str(), "unlinked");
  EXPECT_EQ(Family::itemsPerThread().str(), "ipt");
  EXPECT_EQ(Family::vectorBytes().str(), "vecbytes");
  EXPECT_EQ(Family::unroll(120).str(), "unroll@120");
  EXPECT_EQ(Family::items(64).str(), "items@64");
  EXPECT_EQ(Family::minBlocks(7).str(), "minblocks@7");
  EXPECT_EQ(Family::vectorType("float4").str(), "vectype:float4");
  EXPECT_EQ(Family::templateArg(2).str(), "targ@2");
  EXPECT_EQ(Family::gridSize(40).str(), "grid@40");
  std::ostringstream os;
  os << Family::templateArg(0);
  EXPECT_EQ(os.str(), "targ@0");
}

TEST(Family, OneGroupPerKeyOnlyForSingleFamilies) {
  EXPECT_TRUE(Family::unroll(1).isSingle());
  EXPECT_TRUE(Family::items(1).isSingle());
  EXPECT_TRUE(Family::minBlocks(1).isSingle());
  EXPECT_TRUE(Family::gridSize(1).isSingle());
  EXPECT_TRUE(Family::vectorType("int4").isSingle());
  EXPECT_FALSE(Family::block().isSingle());
  EXPECT_FALSE(Family::itemsPerThread().isSingle());
  EXPECT_FALSE(Family::vectorBytes().isSingle());
  EXPECT_FALSE(Family::templateArg(0).isSingle());
  EXPECT_FALSE(Family().isSingle());
}

TEST(Family, Equality) {
  EXPECT_EQ(Family::unroll(3), Family::unroll(3));
  EXPECT_NE(Family::unroll(3), Family::unroll(4));
  EXPECT_NE(Family::unroll(3), Family::items(3));
  EXPECT_NE(Family::vectorType("float2"), Family::vectorType("float4"));
}

TEST(Family, EffectiveRoleOfADefinitionIsItsUse) {
  Occurrence o;
  o.role = SiteRole::Definition;
  EXPECT_EQ(effectiveRole(o), std::nullopt);
  o.useRole = SiteRole::LaunchBlock;
  EXPECT_EQ(effectiveRole(o), SiteRole::LaunchBlock);
  o.role = SiteRole::LoopStride;
  EXPECT_EQ(effectiveRole(o), SiteRole::LoopStride);
}
