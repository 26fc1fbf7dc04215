// Grouping facts into candidates: the rules that need no AST.
#include "ktune/Refactor/Detection.h"

#include <gtest/gtest.h>

using namespace ktune;
using namespace ktune::refactor;

namespace {

FunctionFacts kernel(const std::string &id, const std::string &name,
                     unsigned offset) {
  FunctionFacts f;
  f.id = id;
  f.role = FunctionRole::Kernel;
  f.name = f.qualifiedName = name;
  f.offset = offset;
  return f;
}

Occurrence literal(unsigned offset, int64_t value, SiteRole role,
                   const std::string &kernel,
                   const Family &family = Family::block()) {
  Occurrence o;
  o.offset = offset;
  o.length = static_cast<unsigned>(std::to_string(value).size());
  o.line = 1;
  o.col = offset + 1;
  o.text = std::to_string(value);
  o.function = kernel;
  o.kernel = kernel;
  o.role = role;
  o.value = o.baseValue = value;
  o.family = family;
  return o;
}

SourceFacts oneKernel() {
  SourceFacts f;
  f.file = "k.cu";
  f.functions["fn@1"] = kernel("fn@1", "k", 1);
  return f;
}

const Candidate *only(const CandidateSet &set, ParamKind kind) {
  const Candidate *found = nullptr;
  for (const auto &c : set.candidates)
    if (c.kind == kind) {
      EXPECT_EQ(found, nullptr) << "two candidates of kind " << kindName(kind);
      found = &c;
    }
  return found;
}

} // namespace

TEST(Candidates, SameLiteralInLinkedRolesIsOneCandidate) {
  SourceFacts f = oneKernel();
  f.occurrences = {literal(10, 256, SiteRole::LaunchBounds, "fn@1"),
                   literal(20, 256, SiteRole::CubBlockSize, "fn@1"),
                   literal(30, 256, SiteRole::LoopStride, "fn@1"),
                   literal(40, 255, SiteRole::LaunchGrid, "fn@1"),
                   literal(50, 256, SiteRole::LaunchBlock, "fn@1")};
  f.occurrences[3].top = false;
  CandidateSet set = buildCandidates(f);
  ASSERT_EQ(set.candidates.size(), 1u);
  const Candidate &c = set.candidates[0];
  EXPECT_EQ(c.kind, ParamKind::BlockSize);
  EXPECT_EQ(c.value, 256);
  EXPECT_EQ(c.confidence, Confidence::High);
  ASSERT_EQ(c.sites.size(), 5u);
  EXPECT_EQ(c.sites[3].replacement, "{P} - 1");
  EXPECT_EQ(c.id.rfind("c_bs_", 0), 0u);
}

TEST(Candidates, WeakLiteralWithoutAStrongPartnerIsNoSite) {
  SourceFacts f = oneKernel();
  f.occurrences = {literal(10, 128, SiteRole::LoopStride, "fn@1"),
                   literal(20, 64, SiteRole::IndexArith, "fn@1")};
  EXPECT_TRUE(buildCandidates(f).candidates.empty());
}

TEST(Candidates, PaddedTileExtentJoinsTheTile) {
  SourceFacts f = oneKernel();
  f.occurrences = {literal(10, 32, SiteRole::SharedExtent, "fn@1"),
                   literal(14, 33, SiteRole::SharedExtent, "fn@1")};
  CandidateSet set = buildCandidates(f);
  ASSERT_EQ(set.candidates.size(), 1u);
  EXPECT_EQ(set.candidates[0].kind, ParamKind::TileSize);
  EXPECT_EQ(set.candidates[0].value, 32);
  EXPECT_EQ(set.candidates[0].sites[1].replacement, "{P} + 1");
}

TEST(Candidates, LaunchTemplateArgumentsThatDisagreeAreADispatch) {
  SourceFacts f = oneKernel();
  f.functions["fn@1"].templateParams = {{"N", "int", {}, false}};
  Occurrence a =
      literal(10, 8, SiteRole::TemplateArg, "fn@1", Family::templateArg(0));
  Occurrence b =
      literal(20, 2, SiteRole::TemplateArg, "fn@1", Family::templateArg(0));
  a.boundParam = b.boundParam = 0;
  f.occurrences = {a, b};
  EXPECT_TRUE(buildCandidates(f).candidates.empty());
  f.occurrences = {a};
  CandidateSet set = buildCandidates(f);
  ASSERT_EQ(set.candidates.size(), 1u);
  EXPECT_NE(set.candidates[0].why.find("template parameter N"),
            std::string::npos);
}

TEST(Candidates, NamedConstantNeedsARoleOrATellingName) {
  SourceFacts f = oneKernel();
  Occurrence scale = literal(10, 3, SiteRole::Other, "fn@1", Family());
  scale.spelling = Spelling::Macro;
  scale.constant = "macro:SCALE";
  scale.constantName = scale.text = "SCALE";
  Occurrence tile = scale;
  tile.offset = 20;
  tile.constant = "macro:TILE_M";
  tile.constantName = tile.text = "TILE_M";
  f.occurrences = {scale, tile};
  CandidateSet set = buildCandidates(f);
  ASSERT_EQ(set.candidates.size(), 1u);
  EXPECT_EQ(set.candidates[0].spelling, "TILE_M");
  EXPECT_EQ(set.candidates[0].kind, ParamKind::TileSize);
  EXPECT_EQ(set.candidates[0].confidence, Confidence::Medium);
}

TEST(Candidates, IdsDoNotDependOnLineNumbers) {
  SourceFacts f = oneKernel();
  f.occurrences = {literal(10, 256, SiteRole::LaunchBlock, "fn@1")};
  std::string before = buildCandidates(f).candidates.at(0).id;
  f.occurrences[0].line += 7;
  f.occurrences[0].offset += 100;
  EXPECT_EQ(buildCandidates(f).candidates.at(0).id, before);
}

TEST(Candidates, SharedMemoryAndBlockConstraints) {
  SourceFacts f = oneKernel();
  f.functions["fn@1"].usesWarpLevelOps = true;
  f.occurrences = {literal(10, 32, SiteRole::SharedExtent, "fn@1"),
                   literal(14, 33, SiteRole::SharedExtent, "fn@1"),
                   literal(30, 128, SiteRole::LaunchBlock, "fn@1")};
  SharedArrayFacts arr;
  arr.function = "fn@1";
  arr.elementSize = 4;
  arr.extents = {marker(10), marker(14)};
  f.sharedArrays = {arr};
  CallFacts launch;
  launch.isLaunch = true;
  launch.caller = "fn@99";
  launch.callee = "fn@1";
  launch.block = {marker(30)};
  f.calls = {launch};
  CandidateSet set = buildCandidates(f);
  const Candidate *tile = only(set, ParamKind::TileSize);
  const Candidate *block = only(set, ParamKind::BlockSize);
  ASSERT_TRUE(tile && block);
  auto has = [](const Candidate *c, const std::string &text) {
    return std::find(c->impliedConstraints.begin(), c->impliedConstraints.end(),
                     text) != c->impliedConstraints.end();
  };
  EXPECT_TRUE(
      has(tile, "4 * {" + tile->id + "} * ({" + tile->id + "} + 1) <= 49152"));
  EXPECT_TRUE(has(block, "{" + block->id + "} <= 1024"));
  EXPECT_TRUE(has(block, "{" + block->id + "} % 32 == 0"));
}

TEST(SourceFacts, ResolveMarkers) {
  auto r = resolveMarkers("(n + @12@) / @40@", [](unsigned off) {
    return std::optional<std::string>(off == 12 ? "(B - 1)" : "B");
  });
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, "(n + (B - 1)) / B");
  EXPECT_FALSE(resolveMarkers(
      "@1@", [](unsigned) { return std::optional<std::string>(); }));
}

TEST(SourceFacts, MergeDeduplicatesByOffsetAndHelpersAreAttributed) {
  SourceFacts host = oneKernel(), device = oneKernel();
  host.occurrences = {literal(10, 256, SiteRole::LaunchBlock, "fn@1")};
  device.occurrences = {literal(10, 256, SiteRole::LaunchBlock, "fn@1"),
                        literal(20, 256, SiteRole::LoopStride, "fn@1")};
  FunctionFacts helper;
  helper.id = "fn@5";
  helper.role = FunctionRole::DeviceHelper;
  device.functions["fn@5"] = helper;
  device.functions["fn@1"].callees = {"fn@5"};
  Occurrence inHelper = literal(30, 256, SiteRole::LoopStride, "fn@5");
  inHelper.kernel.clear();
  device.occurrences.push_back(inHelper);
  mergeFacts(host, device);
  EXPECT_EQ(host.occurrences.size(), 3u);
  attributeHelperOccurrences(host);
  ASSERT_EQ(host.occurrences.size(), 3u);
  EXPECT_EQ(host.occurrences[2].kernel, "fn@1");
  EXPECT_EQ(host.occurrences[2].function, "fn@5");
}
