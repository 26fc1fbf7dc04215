// Site roles: the typed vocabulary and its JSON spelling.
#include "ktune/Plan/Candidates.h"

#include <gtest/gtest.h>

#include <sstream>
#include <vector>

using namespace ktune;
using nlohmann::json;

namespace {

const std::vector<std::pair<SiteRole, std::string>> AllRoles = {
    {SiteRole::CubBlockSize, "cub_block_size"},
    {SiteRole::CubItemsPerThread, "cub_items_per_thread"},
    {SiteRole::Definition, "definition"},
    {SiteRole::IndexArith, "index_arith"},
    {SiteRole::LaunchBlock, "launch_block"},
    {SiteRole::LaunchBounds, "launch_bounds"},
    {SiteRole::LaunchBoundsMinBlocks, "launch_bounds_min_blocks"},
    {SiteRole::LaunchGrid, "launch_grid"},
    {SiteRole::LaunchSmem, "launch_smem"},
    {SiteRole::LoopBound, "loop_bound"},
    {SiteRole::LoopStride, "loop_stride"},
    {SiteRole::Other, "other"},
    {SiteRole::RegisterArray, "register_array"},
    {SiteRole::SharedExtent, "shared_extent"},
    {SiteRole::TemplateArg, "template_arg"},
    {SiteRole::TemplateDefault, "template_default"},
    {SiteRole::UnrollPragma, "unroll_pragma"},
    {SiteRole::VectorBytes, "vector_bytes"},
    {SiteRole::VectorType, "vector_type"},
};

json oneSite(const std::string &role) {
  return json::parse(R"({"ktune": "candidates/1", "file": "k.cu",
    "candidates": [{"id": "c1", "kind": "block_size", "kernel": "k",
      "value": 256, "sites": [{"line": 1, "col": 1, "offset": 0,
      "text": "256", "role": ")" +
                     role + R"("}]}]})");
}

} // namespace

TEST(SiteRole, NamesRoundTrip) {
  for (const auto &[role, name] : AllRoles) {
    EXPECT_EQ(siteRoleName(role), name);
    EXPECT_EQ(parseSiteRole(name), role) << name;
    std::ostringstream os;
    os << role;
    EXPECT_EQ(os.str(), name);
  }
  EXPECT_EQ(parseSiteRole("launch-block"), std::nullopt);
  EXPECT_EQ(parseSiteRole(""), std::nullopt);
}

// Facts and sites are sorted by role: the enum's order must be the order of
// the names, as it was when roles were strings.
TEST(SiteRole, OrderIsTheOrderOfTheNames) {
  for (const auto &[a, nameA] : AllRoles)
    for (const auto &[b, nameB] : AllRoles)
      EXPECT_EQ(a < b, nameA < nameB) << nameA << " vs " << nameB;
}

TEST(SiteRole, JsonKeepsTheSpelling) {
  for (const auto &[role, name] : AllRoles) {
    auto set = candidatesFromJson(oneSite(name));
    ASSERT_TRUE(set) << set.error().str();
    EXPECT_EQ(set->candidates[0].sites[0].role, role);
    EXPECT_EQ(candidatesToJson(*set)["candidates"][0]["sites"][0]["role"],
              name);
  }
}

TEST(SiteRole, MissingRoleIsOther) {
  json j = oneSite("other");
  j["candidates"][0]["sites"][0].erase("role");
  auto set = candidatesFromJson(j);
  ASSERT_TRUE(set) << set.error().str();
  EXPECT_EQ(set->candidates[0].sites[0].role, SiteRole::Other);
}

TEST(SiteRole, UnknownRoleIsAnErrorAtItsPath) {
  auto set = candidatesFromJson(oneSite("launch_blok"));
  ASSERT_FALSE(set);
  EXPECT_EQ(set.error().where, "candidates[0].sites[0].role");
  EXPECT_NE(set.error().message.find("launch_blok"), std::string::npos);
}
