// The steps of buildCandidates, one by one
// (lib/Refactor/Group/GroupInternal.h).
#include "Group/GroupInternal.h"

#include <gtest/gtest.h>

using namespace ktune;
using namespace ktune::refactor;

namespace {

Occurrence site(unsigned offset, int64_t value, SiteRole role,
                Family family = Family::block(),
                const std::string &function = "fn@1") {
  Occurrence o;
  o.offset = offset;
  o.length = static_cast<unsigned>(std::to_string(value).size());
  o.line = offset;
  o.col = 1;
  o.text = std::to_string(value);
  o.function = function;
  o.kernel = "fn@1";
  o.role = role;
  o.value = o.baseValue = value;
  o.family = std::move(family);
  return o;
}

Occurrence named(unsigned offset, int64_t value, SiteRole role,
                 const std::string &name, const std::string &function) {
  Occurrence o = site(offset, value, role, Family(), function);
  o.spelling = Spelling::Variable;
  o.constant = "var:" + name;
  o.constantName = o.text = name;
  return o;
}

FunctionFacts kernel() {
  FunctionFacts k;
  k.id = "fn@1";
  k.role = FunctionRole::Kernel;
  k.name = k.qualifiedName = "k";
  k.offset = 1;
  return k;
}

} // namespace

TEST(CandidateRules, StrongAndEvidenceRoles) {
  EXPECT_TRUE(isStrongRole(site(1, 32, SiteRole::SharedExtent)));
  Occurrence inner = site(1, 256, SiteRole::LaunchBlock);
  EXPECT_TRUE(isStrongRole(inner));
  inner.top = false; // `256 * 2` as the block: not the whole expression
  EXPECT_FALSE(isStrongRole(inner));
  EXPECT_FALSE(isStrongRole(site(1, 256, SiteRole::LoopStride)));
  Occurrence def = site(1, 256, SiteRole::Definition);
  EXPECT_FALSE(isEvidenceRole(def)); // no use role: a plain definition
  def.useRole = SiteRole::CubBlockSize;
  EXPECT_TRUE(isEvidenceRole(def));
  EXPECT_TRUE(isStrongRole(def));
  EXPECT_FALSE(isEvidenceRole(site(1, 255, SiteRole::LaunchGrid)));
  EXPECT_FALSE(isEvidenceRole(site(1, 4, SiteRole::IndexArith)));
}

TEST(CandidateRules, KindFromName) {
  EXPECT_EQ(kindFromName("kThreadsPerBlock"), ParamKind::BlockSize);
  EXPECT_EQ(kindFromName("BLOCK_SIZE"), ParamKind::BlockSize);
  EXPECT_EQ(kindFromName("TILE_M"), ParamKind::TileSize);
  EXPECT_EQ(kindFromName("kUnroll"), ParamKind::Unroll);
  EXPECT_EQ(kindFromName("kWarps"), ParamKind::WarpsPerBlock);
  EXPECT_EQ(kindFromName("ITEMS_PER_THREAD"), ParamKind::ItemsPerThread);
  // Items per thread, though the name ends in "threads".
  EXPECT_EQ(kindFromName("MaxItemsPerThreads"), ParamKind::ItemsPerThread);
  EXPECT_EQ(kindFromName("kVecWidth"), ParamKind::VectorWidth);
  // A vector-matrix kernel's threads, not a vector width.
  EXPECT_EQ(kindFromName("VECMAT_THREADS"), ParamKind::BlockSize);
  EXPECT_EQ(kindFromName("kWarpSize"), std::nullopt);
  EXPECT_EQ(kindFromName("SCALE"), std::nullopt);
}

TEST(CandidateRules, RoleDescriptions) {
  EXPECT_EQ(roleDescription(SiteRole::LaunchBlock, 1), "launch block dim y");
  EXPECT_EQ(roleDescription(SiteRole::LaunchGrid, -1), "grid arithmetic");
  EXPECT_EQ(roleDescription(SiteRole::UnrollPragma, -1),
            "#pragma unroll count");
  EXPECT_EQ(roleDescription(SiteRole::Other, -1), "other use");
  EXPECT_EQ(roleDescription(std::nullopt, -1), "other use");
}

TEST(CandidateRules, KindAndConfidenceOfGroups) {
  CandidateGroup g;
  g.sites = {site(10, 256, SiteRole::LaunchBounds),
             site(20, 256, SiteRole::LoopStride)};
  EXPECT_EQ(inferKind(g), ParamKind::BlockSize);
  EXPECT_EQ(confidenceOf(g), Confidence::High);
  CandidateGroup tile;
  tile.sites = {site(10, 32, SiteRole::SharedExtent)};
  EXPECT_EQ(inferKind(tile), ParamKind::TileSize);
  EXPECT_EQ(confidenceOf(tile), Confidence::Medium);
  tile.unlinkedLines = {40};
  EXPECT_EQ(confidenceOf(tile), Confidence::Low);
}

TEST(CandidateRules, CastOutsideConstantContexts) {
  Occurrence stride = site(10, 256, SiteRole::LoopStride);
  stride.castType = "unsigned int";
  finishReplacement(stride, "");
  EXPECT_EQ(stride.replacement, "static_cast<unsigned int>({P})");
  Occurrence extent = site(10, 256, SiteRole::SharedExtent);
  extent.castType = "unsigned int";
  finishReplacement(extent, "");
  EXPECT_EQ(extent.replacement, "{P}");
}

TEST(CandidateRules, NoCastWhereTheParameterHasTheSiteType) {
  // `std::min(d / vec, 1024U)`: an unsigned parameter replaces 1024U as is.
  Occurrence cap = site(10, 1024, SiteRole::LaunchBlock);
  cap.castType = cap.valueType = "unsigned int";
  CandidateGroup g;
  g.sites = {cap};
  EXPECT_EQ(groupType(g), "unsigned int");
  finishReplacement(cap, groupType(g));
  EXPECT_EQ(cap.replacement, "{P}");
  // In an int group the unsigned cap keeps its type: deduction unchanged.
  Occurrence other = cap;
  finishReplacement(other, "");
  EXPECT_EQ(other.replacement, "static_cast<unsigned int>({P})");
  // An int literal next to an unsigned parameter stays int.
  Occurrence bound = site(20, 1024, SiteRole::LoopBound);
  finishReplacement(bound, "unsigned int");
  EXPECT_EQ(bound.replacement, "static_cast<int>({P})");
}

TEST(Grouping, DispatchParamsAreSpelledDifferentlyAtLaunches) {
  SourceFacts f;
  f.functions["fn@1"] = kernel();
  CallFacts a, b;
  a.isLaunch = b.isLaunch = true;
  a.callee = b.callee = "fn@1";
  a.explicitArgs = {"float", "QK8_0"};
  b.explicitArgs = {"float", "QK4_0 "};
  f.calls = {a, b};
  EXPECT_EQ(dispatchParams(f, kernel()), std::set<int>{1});
  b.explicitArgs = {"float", " QK8_0"};
  f.calls = {a, b};
  EXPECT_TRUE(dispatchParams(f, kernel()).empty());
}

TEST(Grouping, KernelOccurrencesDropDispatchArguments) {
  SourceFacts f;
  Occurrence arg = site(10, 8, SiteRole::TemplateArg, Family::templateArg(1));
  arg.boundParam = 1;
  Occurrence passed = named(20, 4, SiteRole::TemplateArg, "kQ", "fn@9");
  passed.boundParam = 1;
  Occurrence use = named(30, 4, SiteRole::Other, "kQ", "fn@1");
  Occurrence stride = site(40, 256, SiteRole::LoopStride);
  Occurrence otherKernel = stride;
  otherKernel.kernel = "fn@2";
  f.occurrences = {arg, passed, use, stride, otherKernel};
  auto occs = kernelOccurrences(f, kernel(), {1});
  ASSERT_EQ(occs.size(), 1u);
  EXPECT_EQ(occs[0].offset, 40u);
  EXPECT_EQ(kernelOccurrences(f, kernel(), {}).size(), 4u);
}

TEST(Grouping, SortIntoFamilies) {
  std::vector<Occurrence> occs = {
      site(10, 256, SiteRole::LaunchBlock),
      site(20, 256, SiteRole::LoopStride), // weak: joins later
      site(30, 4, SiteRole::RegisterArray, Family::itemsPerThread()),
      site(40, 16, SiteRole::VectorBytes, Family::vectorBytes()),
      site(50, 4, SiteRole::UnrollPragma, Family::unroll(50)),
      site(60, 2, SiteRole::VectorType, Family::vectorType("float2")),
      site(70, 8, SiteRole::TemplateArg, Family::templateArg(0)),
      site(80, 256, SiteRole::Other, Family::unlinked()),
      named(90, 64, SiteRole::SharedExtent, "kTile", "fn@1")};
  KernelGroups k = sortIntoFamilies(occs, "fn@1");
  ASSERT_EQ(k.block.size(), 1u);
  EXPECT_EQ(k.block.at(256).sites.size(), 1u);
  ASSERT_EQ(k.weak.size(), 1u);
  EXPECT_EQ(k.ipt.count(4), 1u);
  EXPECT_EQ(k.vecbytes.count(16), 1u);
  EXPECT_EQ(k.single.count("unroll@50"), 1u);
  ASSERT_EQ(k.single.count("vectype:float2"), 1u);
  EXPECT_TRUE(k.single.at("vectype:float2").informational);
  EXPECT_EQ(k.targs.at("targ@0").count(8), 1u);
  EXPECT_EQ(k.unlinked.at(256), std::vector<unsigned>{80});
  ASSERT_EQ(k.named.count("var:kTile"), 1u);
  EXPECT_TRUE(k.named.at("var:kTile").named);
}

TEST(Grouping, PaddedExtentJoinsItsTile) {
  KernelGroups k = sortIntoFamilies({site(10, 32, SiteRole::SharedExtent),
                                     site(14, 33, SiteRole::SharedExtent)},
                                    "fn@1");
  mergePaddedExtents(k);
  ASSERT_EQ(k.block.size(), 1u);
  const CandidateGroup &g = k.block.at(32);
  ASSERT_EQ(g.sites.size(), 2u);
  EXPECT_EQ(g.sites[1].replacement, "{P} + 1");
  EXPECT_EQ(g.sites[1].baseValue, 32);
}

TEST(Grouping, WeakSitesJoinTheirValueOrTheValueAbove) {
  KernelGroups k = sortIntoFamilies({site(10, 256, SiteRole::LaunchBlock),
                                     site(20, 256, SiteRole::LoopStride),
                                     site(30, 255, SiteRole::LaunchGrid),
                                     site(40, 100, SiteRole::LoopStride)},
                                    "fn@1");
  joinWeakSites(k);
  const CandidateGroup &g = k.block.at(256);
  ASSERT_EQ(g.sites.size(), 3u);
  EXPECT_EQ(g.sites[2].replacement, "{P} - 1");
  EXPECT_EQ(g.sites[2].baseValue, 256);
}

TEST(Grouping, TemplateArgumentsFoldOnlyWhenConsistent) {
  Occurrence a = site(10, 8, SiteRole::TemplateArg, Family::templateArg(0));
  Occurrence b = site(20, 2, SiteRole::TemplateArg, Family::templateArg(0));
  Occurrence c = site(30, 128, SiteRole::TemplateArg, Family::templateArg(1));
  c.boundParam = 1;
  KernelGroups k = sortIntoFamilies({a, b, c}, "fn@1");
  foldTemplateArgs(k);
  EXPECT_EQ(k.single.count("targ@0"), 0u); // 8 and 2: a dispatch
  ASSERT_EQ(k.single.count("targ@1"), 1u);
  EXPECT_EQ(k.single.at("targ@1").boundParam, 1);
}

TEST(Grouping, NamedConstantsNeedEvidenceAndAbsorbLiterals) {
  KernelGroups k = sortIntoFamilies(
      {named(10, 3, SiteRole::Other, "SCALE", "fn@1"),
       named(20, 256, SiteRole::Other, "kBlockSize", "fn@1"),
       site(30, 256, SiteRole::LaunchBlock, Family::block(), "fn@7")},
      "fn@1");
  std::vector<CandidateGroup> named = qualifiedNamedGroups(k);
  ASSERT_EQ(named.size(), 1u); // SCALE: no role, no telling name
  EXPECT_EQ(named[0].constantName, "kBlockSize");
  absorbLiteralBlocks(named, k);
  EXPECT_EQ(named[0].sites.size(), 2u);
  EXPECT_TRUE(k.block.empty());
}

TEST(Grouping, HostAndKernelBlockConstantsMerge) {
  KernelGroups k = sortIntoFamilies(
      {named(10, 256, SiteRole::CubBlockSize, "kThreads", "fn@1"),
       named(20, 256, SiteRole::LaunchBlock, "kBlockDim", "fn@7")},
      "fn@1");
  std::vector<CandidateGroup> named = qualifiedNamedGroups(k);
  ASSERT_EQ(named.size(), 2u);
  mergeHostAndKernelConstants(named, "fn@1");
  size_t kept = 0;
  for (const auto &g : named)
    if (!g.sites.empty()) {
      ++kept;
      EXPECT_EQ(g.constantName, "kThreads"); // the kernel's name is kept
      EXPECT_EQ(g.sites.size(), 2u);
    }
  EXPECT_EQ(kept, 1u);
}

TEST(Grouping, GroupKernelOrdersNamedThenLiteralFamilies) {
  SourceFacts f;
  f.functions["fn@1"] = kernel();
  f.occurrences = {site(10, 4, SiteRole::UnrollPragma, Family::unroll(10)),
                   site(20, 128, SiteRole::LaunchBounds),
                   named(30, 8, SiteRole::RegisterArray, "kItems", "fn@1")};
  auto groups = groupKernel(f, kernel());
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_TRUE(groups[0].named);
  EXPECT_EQ(groups[1].value, 128);
  EXPECT_EQ(groups[2].value, 4);
}

TEST(ImpliedConstraints, CanonicalTextAndDefaults) {
  EXPECT_EQ(canonicalConstraint("{c1}  %32==0"), "{c1} % 32 == 0");
  EXPECT_EQ(canonicalConstraint("{c1} <"), std::nullopt);
  EXPECT_TRUE(holdsAtDefaults("{c1} * {c2} <= 1024", {{"c1", 32}, {"c2", 8}}));
  EXPECT_FALSE(
      holdsAtDefaults("{c1} * {c2} <= 1024", {{"c1", 256}, {"c2", 8}}));
  EXPECT_FALSE(holdsAtDefaults("{c3} <= 1024", {{"c1", 32}}));
}

TEST(Grouping, HostOnlyGroupsAreLaunchParameters) {
  SourceFacts f;
  f.functions["fn@1"] = kernel();
  FunctionFacts host;
  host.id = "fn@50";
  host.role = FunctionRole::Host;
  host.name = host.qualifiedName = "go";
  f.functions[host.id] = host;
  CandidateGroup cap, bounded, vecBytes, bound;
  cap.sites = {site(60, 1024, SiteRole::LaunchBlock, Family::block(), "fn@50")};
  bounded.sites = {
      site(5, 256, SiteRole::LaunchBounds),
      site(61, 256, SiteRole::LaunchBlock, Family::block(), "fn@50")};
  vecBytes.sites = {
      site(62, 16, SiteRole::VectorBytes, Family::vectorBytes(), "fn@50")};
  bound.sites = {
      site(63, 8, SiteRole::TemplateArg, Family::templateArg(0), "fn@50")};
  bound.boundParam = 0;
  std::vector<CandidateGroup> groups = {cap, bounded, vecBytes, bound};
  markLaunchParams(f, groups);
  // The host's 16 / sizeof(T) alone is dropped.
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_TRUE(groups[0].launchParam);
  EXPECT_EQ(groups[0].hosts, std::vector<std::string>{"go"});
  EXPECT_FALSE(groups[1].launchParam); // the kernel spells it too
  EXPECT_FALSE(groups[2].launchParam); // sets a kernel template parameter
}
