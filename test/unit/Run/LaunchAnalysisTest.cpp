// The analysis' launch facts (occupancy, its limiter, grid fill) and the
// diagnoses and proposals they lead to, on hand-built rounds.
#include "ktune/Run/Analysis.h"
#include "ktune/Run/Replan.h"

#include "Fabricate.h"

#include "ktune/Planner/PlanWithValidation.h"

#include <gtest/gtest.h>

using namespace ktune;
using namespace ktune::run;
using namespace ktune::testing;

namespace {

DeviceLimits sm90() { return *staticDeviceLimits("sm_90"); }

Resources resources(int threads, int registers, int smemStatic = 0) {
  Resources r;
  r.threadsPerBlock = threads;
  r.registers = registers;
  r.smemStatic = smemStatic;
  return r;
}

LaunchDims launchOf(int64_t blocks, int64_t threads) {
  LaunchDims d;
  d.grid = {blocks, 1, 1};
  d.block = {threads, 1, 1};
  return d;
}

/// A kernel of one row per block: grid (rows), block (BLOCK).
ManifestKernel rowKernel(int64_t defaultBlock) {
  ManifestKernel k;
  k.name = k.qualifiedName = "k";
  TemplateParam block;
  block.name = "BLOCK";
  block.type = "int";
  block.tunable = true;
  block.kind = ParamKind::BlockSize;
  block.defaultValue = defaultBlock;
  k.templateParams.push_back(block);
  k.launch = LaunchGeometry{{"rows"}, {"BLOCK"}, "0", "", false};
  return k;
}

SpaceDefinition blockSpace(int64_t defaultBlock) {
  SpaceDefinition d;
  d.params.push_back({"BLOCK", Domain::ofPow2Range(128, 1024), defaultBlock});
  return d;
}

/// Every configuration's resources: `registers` per thread, the launch's
/// threads.
void setRegisters(FabricatedRound &r, int registers) {
  for (auto &e : r.journal)
    e.result.resources = resources(int(e.key.config.at("BLOCK")), registers);
}

KernelAnalysis analyseOn(const FabricatedRound &r, const ManifestKernel &mk,
                         AnalysisOptions options = {}) {
  KernelRoundInput in;
  in.results = &r.results;
  in.journal = &r.journal;
  in.space = &r.space;
  in.spec = &r.spec;
  in.roofline = {4.25, "test"};
  in.manifestKernel = &mk;
  in.device = sm90();
  auto a = analyzeKernel(in, options);
  if (!a)
    throw std::runtime_error(a.error().str());
  return *a;
}

const Diagnosis *diagnosisOf(const KernelAnalysis &a, DiagnosisKind kind) {
  for (const auto &d : a.diagnoses)
    if (d.kind == kind)
      return &d;
  return nullptr;
}

} // namespace

TEST(LaunchFacts, RegisterLimited) {
  // 33 registers: 1280 per warp, 12 warps per sub-partition, 48 warps: one
  // block of 32 warps.
  auto f = launchFacts(sm90(), resources(1024, 33), launchOf(4096, 1024));
  ASSERT_TRUE(f && f->occupancy);
  EXPECT_EQ(f->occupancy->limiter, "registers");
  EXPECT_EQ(f->occupancy->blocksPerSM, 1);
  EXPECT_DOUBLE_EQ(f->occupancy->warpOccupancy, 0.5);
  EXPECT_EQ(registerCapFor(sm90(), {1024, 33, 0, 0, 0}, 2), 32);
}

TEST(LaunchFacts, SharedMemoryLimited) {
  // 100 KB + the driver's 1 KB per block: two of them in 228 KB.
  auto f =
      launchFacts(sm90(), resources(128, 32, 100 * 1024), launchOf(1024, 128));
  ASSERT_TRUE(f && f->occupancy);
  EXPECT_EQ(f->occupancy->limiter, "shared memory");
  EXPECT_EQ(f->occupancy->blocksPerSM, 2);
  EXPECT_EQ(f->smem, 100 * 1024);
}

TEST(LaunchFacts, ThreadLimited) {
  auto f = launchFacts(sm90(), resources(1024, 16), launchOf(1024, 1024));
  ASSERT_TRUE(f && f->occupancy);
  EXPECT_EQ(f->occupancy->limiter, "warps");
  EXPECT_EQ(f->occupancy->blocksPerSM, 2);
  EXPECT_DOUBLE_EQ(f->occupancy->warpOccupancy, 1.0);
}

TEST(LaunchFacts, BlockSlotLimited) {
  auto f = launchFacts(sm90(), resources(32, 16), launchOf(1024, 32));
  ASSERT_TRUE(f && f->occupancy);
  EXPECT_EQ(f->occupancy->limiter, "block slots");
  EXPECT_EQ(f->occupancy->blocksPerSM, 32);
}

TEST(LaunchFacts, DecodeSizeGridOfOneBlock) {
  auto f = launchFacts(sm90(), resources(256, 32), launchOf(1, 256));
  ASSERT_TRUE(f && f->blocks);
  EXPECT_EQ(*f->blocks, 1);
  EXPECT_EQ(f->smCount, 132);
  EXPECT_EQ(f->smsBusy, 1);
  EXPECT_NEAR(f->smsBusyFraction(), 1.0 / 132, 1e-12);
  // 8 blocks of 256 threads per SM: 1056 slots, one taken.
  EXPECT_EQ(f->occupancy->blocksPerSM, 8);
  EXPECT_NEAR(*f->waves, 1.0 / 1056, 1e-12);
  EXPECT_NEAR(*f->tailFill, 1.0 / 1056, 1e-12);
}

TEST(LaunchFacts, FullGridInWaves) {
  // 4096 blocks of 1024 threads, 2 per SM: 264 at once, 15.5 waves, the
  // last 136 of 264 full.
  auto f = launchFacts(sm90(), resources(1024, 16), launchOf(4096, 1024));
  ASSERT_TRUE(f && f->waves && f->tailFill);
  EXPECT_EQ(f->smsBusy, 132);
  EXPECT_NEAR(*f->waves, 4096.0 / 264, 1e-12);
  EXPECT_NEAR(*f->tailFill, 136.0 / 264, 1e-12);
}

TEST(LaunchFacts, WithoutGeometryOrRegisters) {
  auto noGrid = launchFacts(sm90(), resources(256, 32), std::nullopt);
  ASSERT_TRUE(noGrid);
  EXPECT_FALSE(noGrid->blocks);
  EXPECT_FALSE(noGrid->waves);
  EXPECT_TRUE(noGrid->occupancy);
  auto noRegisters = launchFacts(sm90(), resources(256, -1), launchOf(8, 256));
  ASSERT_TRUE(noRegisters);
  EXPECT_FALSE(noRegisters->occupancy);
  EXPECT_EQ(noRegisters->smsBusy, 8);
  EXPECT_FALSE(launchFacts(sm90(), resources(0, 32), std::nullopt));
  auto j = launchFactsToJson(*noRegisters);
  EXPECT_TRUE(j["blocks_per_sm"].is_null());
  EXPECT_EQ(j["grid_blocks"], 8);
}

TEST(LaunchAnalysis, DecodeGridIsDiagnosedAndFullGridIsNot) {
  // BLOCK does not matter; rows 1 and 16 leave most SMs idle, 4096 fill it.
  auto r = fabricate(
      blockSpace(256), {{{"rows", 1}}, {{"rows", 16}}, {{"rows", 4096}}},
      [](const Shape &s, const Configuration &c) {
        return 3.0 + double(s.at("rows")) / 100 + double(c.at("BLOCK")) / 1e4;
      },
      0.005);
  setRegisters(r, 32);
  auto a = analyseOn(r, rowKernel(256));
  EXPECT_EQ(a.smCount, 132);
  ASSERT_EQ(a.shapes.size(), 3u);
  ASSERT_TRUE(a.shapes[0].bestLaunch && a.shapes[0].defaultLaunch);
  EXPECT_EQ(*a.shapes[0].bestLaunch->blocks, 1);
  EXPECT_EQ(a.shapes[0].bestLaunch->threadsPerBlock, 128);
  EXPECT_EQ(a.shapes[0].defaultLaunch->threadsPerBlock, 256);
  EXPECT_EQ(a.shapes[2].bestLaunch->smsBusy, 132);

  const Diagnosis *d = diagnosisOf(a, DiagnosisKind::SmallGrid);
  ASSERT_NE(d, nullptr);
  ASSERT_EQ(d->shapes.size(), 2u);
  EXPECT_EQ(d->shapes[0].at("rows"), 1);
  EXPECT_EQ(d->shapes[1].at("rows"), 16);
  EXPECT_EQ(d->smsBusy, 1);
  EXPECT_EQ(d->smCount, 132);
  EXPECT_NE(d->message.find("the grid fills 1 of 132 SMs at rows=1 (1 block "
                            "of 128 threads) and 16 of 132 SMs at rows=16"),
            std::string::npos)
      << d->message;
  EXPECT_EQ(diagnosisOf(a, DiagnosisKind::RegisterLimited), nullptr);

  auto j = kernelAnalysisToJson(a);
  EXPECT_EQ(j["diagnoses"][0]["kind"], "small_grid");
  EXPECT_EQ(j["device_limits"]["sm_count"], 132);
  EXPECT_EQ(j["shapes"][0]["launch"]["best"]["sms_busy"], 1);
  // 128 threads x 32 registers: 16 blocks by warps and by registers.
  EXPECT_EQ(j["shapes"][0]["launch"]["best"]["limiter"], "warps");
  EXPECT_EQ(j["shapes"][0]["launch"]["best"]["blocks_per_sm"], 16);
}

TEST(LaunchAnalysis, LatencyTrivialShapesAreLeftAlone) {
  auto r = fabricate(
      blockSpace(256), {{{"rows", 1}}},
      [](const Shape &, const Configuration &c) {
        return 1.5 + double(c.at("BLOCK")) / 1e4;
      },
      0.005);
  setRegisters(r, 32);
  auto a = analyseOn(r, rowKernel(256));
  EXPECT_TRUE(a.shapes[0].latencyTrivial);
  EXPECT_TRUE(a.diagnoses.empty());
  AnalysisOptions lower;
  lower.latencyFloorUs = 1.0;
  EXPECT_NE(diagnosisOf(analyseOn(r, rowKernel(256), lower),
                        DiagnosisKind::SmallGrid),
            nullptr);
}

TEST(LaunchAnalysis, RegisterLimitedAtTheBestBlock) {
  // 1024 threads are fastest; 33 registers leave one block per SM.
  auto r = fabricate(
      blockSpace(256), {{{"rows", 4096}}, {{"rows", 16384}}},
      [](const Shape &s, const Configuration &c) {
        return double(s.at("rows")) / 100 * (1 + 100.0 / double(c.at("BLOCK")));
      },
      0.005);
  setRegisters(r, 33);
  auto a = analyseOn(r, rowKernel(256));
  ASSERT_EQ(a.shapes[0].bestConfig.at("BLOCK"), 1024);
  EXPECT_EQ(a.shapes[0].bestLaunch->occupancy->limiter, "registers");
  EXPECT_EQ(diagnosisOf(a, DiagnosisKind::SmallGrid), nullptr);
  const Diagnosis *d = diagnosisOf(a, DiagnosisKind::RegisterLimited);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->shapes.size(), 2u);
  EXPECT_EQ(d->threadsPerBlock, 1024);
  EXPECT_EQ(d->registers, 33);
  EXPECT_EQ(d->blocksPerSM, 1);
  EXPECT_EQ(d->minBlocks, 2);
  EXPECT_EQ(d->capRegisters, 32);
  EXPECT_NE(d->message.find("1024 threads x 33 registers leave 1 block per "
                            "SM (50% of its warps)"),
            std::string::npos)
      << d->message;
  EXPECT_NE(d->message.find("__launch_bounds__(1024, 2)"), std::string::npos);
}

TEST(LaunchAnalysis, NoRegisterDiagnosisWhenTheGridFitsInOneWave) {
  auto r = fabricate(
      blockSpace(1024), {{{"rows", 100}}},
      [](const Shape &, const Configuration &c) {
        return 10.0 * (1 + 100.0 / double(c.at("BLOCK")));
      },
      0.005);
  setRegisters(r, 33);
  auto a = analyseOn(r, rowKernel(1024));
  EXPECT_EQ(a.shapes[0].bestLaunch->occupancy->limiter, "registers");
  EXPECT_EQ(diagnosisOf(a, DiagnosisKind::RegisterLimited), nullptr);
}

TEST(LaunchAnalysis, NoFactsWithoutDeviceLimits) {
  auto r = fabricate(
      blockSpace(256), {{{"rows", 1}}},
      [](const Shape &, const Configuration &) { return 3.0; }, 0.005);
  auto a = analyse(r);
  EXPECT_FALSE(a.shapes[0].bestLaunch);
  EXPECT_TRUE(a.diagnoses.empty());
  EXPECT_TRUE(kernelAnalysisToJson(a)["device_limits"].is_null());
}

namespace {

ReplanDecision replanWith(const KernelAnalysis &a) {
  PlanKernel pk;
  pk.kernel = "k";
  PlanParam p;
  p.name = "BLOCK";
  p.kind = ParamKind::BlockSize;
  p.defaultValue = 256;
  p.domain = Domain::ofPow2Range(128, 1024);
  p.candidates = {"c_bs_1"};
  pk.params.push_back(p);
  Plan plan;
  plan.kernels.push_back(pk);
  CandidateSet candidates;
  SourceTexts sources;
  std::vector<KernelAnalysis> all{a};
  ReplanContext ctx;
  ctx.plan = &plan;
  ctx.analyses = &all;
  ctx.candidates = &candidates;
  ctx.sources = &sources;
  auto d = makeRuleReplanner()->replan(ctx);
  if (!d)
    throw std::runtime_error(d.error().str());
  return *d;
}

const ReplanReason *proposeReason(const ReplanDecision &d) {
  for (const auto &r : d.reasons)
    if (r.action == ReplanAction::Propose)
      return &r;
  return nullptr;
}

} // namespace

TEST(LaunchRules, SmallGridProposesStructuralKinds) {
  auto r = fabricate(
      blockSpace(256), {{{"rows", 1}}, {{"rows", 16}}},
      [](const Shape &, const Configuration &c) {
        return 3.0 + double(c.at("BLOCK")) / 1e4;
      },
      0.005);
  setRegisters(r, 32);
  auto decision = replanWith(analyseOn(r, rowKernel(256)));
  ASSERT_EQ(decision.proposals.size(), 2u);
  // The same diagnosis: its arguments fixed per shape (none offered here).
  const Proposal &fixed = decision.proposals[1];
  EXPECT_EQ(fixed.kinds, (std::vector<std::string>{"fixed_arg"}));
  EXPECT_FALSE(fixed.available);
  EXPECT_EQ(fixed.availability, "the kernel has no integer argument to fix");
  const Proposal &p = decision.proposals[0];
  EXPECT_EQ(p.kernel, "k");
  EXPECT_EQ(p.kinds, (std::vector<std::string>{"row_split", "rows_per_block"}));
  EXPECT_FALSE(p.available);
  EXPECT_NE(p.availability.find("not available in this build"),
            std::string::npos);
  const ReplanReason *reason = proposeReason(decision);
  ASSERT_NE(reason, nullptr);
  EXPECT_NE(reason->message.find("the grid fills 1 of 132 SMs"),
            std::string::npos);
  EXPECT_NE(reason->message.find("propose row_split or rows_per_block"),
            std::string::npos);
  auto j = replanDecisionToJson(decision);
  EXPECT_EQ(j["proposals"][0]["kinds"][0], "row_split");
  EXPECT_EQ(j["proposals"][0]["available"], false);
}

TEST(LaunchRules, RegisterLimitedProposesACap) {
  auto r = fabricate(
      blockSpace(256), {{{"rows", 4096}}},
      [](const Shape &s, const Configuration &c) {
        return double(s.at("rows")) / 100 * (1 + 100.0 / double(c.at("BLOCK")));
      },
      0.005);
  setRegisters(r, 33);
  auto decision = replanWith(analyseOn(r, rowKernel(256)));
  ASSERT_EQ(decision.proposals.size(), 1u);
  const Proposal &p = decision.proposals[0];
  EXPECT_EQ(p.kinds, std::vector<std::string>{"register_cap"});
  EXPECT_NE(p.change.find("__launch_bounds__(1024, 2)"), std::string::npos);
  EXPECT_NE(p.change.find("at most 32 registers"), std::string::npos);
  // No candidate for it in this context: the rules say so.
  EXPECT_NE(p.availability.find("offers no register cap"), std::string::npos);
  EXPECT_FALSE(p.available);
  ASSERT_NE(proposeReason(decision), nullptr);
  EXPECT_NE(proposeReason(decision)->message.find(
                "registers limit occupancy at the best configuration"),
            std::string::npos);
}

TEST(LaunchRules, NoProposalOnAFullGrid) {
  auto r = fabricate(
      blockSpace(256), {{{"rows", 4096}}},
      [](const Shape &, const Configuration &c) {
        return 50.0 + double(c.at("BLOCK")) / 1e4;
      },
      0.005);
  setRegisters(r, 32);
  auto decision = replanWith(analyseOn(r, rowKernel(256)));
  EXPECT_TRUE(decision.proposals.empty());
  EXPECT_EQ(proposeReason(decision), nullptr);
}

TEST(LaunchSummary, DiagnosesReachThePlannerSummary) {
  auto r = fabricate(
      blockSpace(256), {{{"rows", 1}}},
      [](const Shape &, const Configuration &c) {
        return 3.0 + double(c.at("BLOCK")) / 1e4;
      },
      0.005);
  setRegisters(r, 32);
  std::vector<KernelAnalysis> all{analyseOn(r, rowKernel(256))};
  Plan plan;
  CandidateSet candidates;
  ReplanContext ctx;
  ctx.plan = &plan;
  ctx.analyses = &all;
  ctx.candidates = &candidates;
  auto summary = tuningSummary(ctx);
  auto errors = planner::checkTuningSummary(summary);
  EXPECT_TRUE(errors.empty()) << (errors.empty() ? "" : errors[0].str());
  const auto &k = summary["kernels"][0];
  EXPECT_EQ(k["diagnoses"][0]["kind"], "small_grid");
  EXPECT_EQ(k["shapes"][0]["launch"]["best"]["sms_busy"], 1);
  EXPECT_TRUE(k["shapes"][0]["launch"]["best"]["waves"].is_number());

  auto bad = summary;
  bad["kernels"][0]["diagnoses"][0]["kind"] = "slow";
  bad["kernels"][0]["shapes"][0]["launch"]["best"]["waves"] = "many";
  EXPECT_EQ(planner::checkTuningSummary(bad).size(), 2u);
}
