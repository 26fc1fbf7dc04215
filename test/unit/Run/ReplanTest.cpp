#include "ktune/Run/Replan.h"

#include "Fabricate.h"

#include "ktune/Support/FileUtil.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace ktune;
using namespace ktune::run;
using namespace ktune::testing;

namespace {

/// rms_scale.cu: block size and items per thread (high confidence, lifted
/// by the heuristic plan) and a `#pragma unroll 4` (medium, left fixed).
struct RmsScale {
  CandidateSet candidates;
  SourceTexts sources;
  Plan plan;
  std::string block, items; // the heuristic plan's parameter names

  RmsScale() {
    std::string dir = std::string(KTUNE_SOURCE_DIR) + "/test/planner/Inputs/";
    auto j = readJsonFile(dir + "rms_scale.candidates.json");
    candidates = *candidatesFromJson(*j);
    sources[candidates.file] = *readFile(dir + "rms_scale.cu");
    HeuristicOptions o;
    o.sources = &sources;
    plan = heuristicPlan(candidates, o);
    for (const auto &p : plan.kernels.at(0).params) {
      if (p.kind == ParamKind::BlockSize)
        block = p.name;
      if (p.kind == ParamKind::ItemsPerThread)
        items = p.name;
    }
  }

  /// The space the plan describes.
  SpaceDefinition space() const {
    SpaceDefinition d;
    for (const auto &p : plan.kernels.at(0).params)
      d.params.push_back({p.name, p.domain, p.defaultValue});
    return d;
  }
};

ReplanContext context(const RmsScale &r, const Plan &plan,
                      const std::vector<KernelAnalysis> &analyses) {
  ReplanContext c;
  c.round = 1;
  c.plan = &plan;
  c.analyses = &analyses;
  c.candidates = &r.candidates;
  c.sources = &r.sources;
  c.file = r.candidates.file;
  c.kernels = {"rms_scale"};
  c.deviceName = "NVIDIA H200";
  c.arch = "sm_90";
  return c;
}

/// `usPerRow` microseconds a row at BLOCK 256 and ITEMS 4, 10 % more for
/// each factor of two away from them in either parameter.
TimeFn perRowTime(const RmsScale &r, double usPerRow) {
  return [&r, usPerRow](const Shape &s, const Configuration &c) {
    return usPerRow * static_cast<double>(s.at("rows")) *
           (1.0 + 0.1 * std::abs(std::log2(c.at(r.block) / 256.0)) +
            0.1 * std::abs(std::log2(c.at(r.items) / 4.0)));
  };
}

KernelAnalysis analysis(const RmsScale &r, const TimeFn &time,
                        double noise = 0.005, const std::string &bytes = "") {
  auto f = fabricate(r.space(), {{{"rows", 4096}}, {{"rows", 16}}}, time, noise,
                     bytes);
  f.results.kernel = "rms_scale";
  for (auto &e : f.journal)
    e.key.kernel = "rms_scale";
  return analyse(f);
}

const PlanParam *param(const Plan &plan, const std::string &name) {
  for (const auto &p : plan.kernels.at(0).params)
    if (p.name == name)
      return &p;
  return nullptr;
}

bool hasReason(const ReplanDecision &d, ReplanAction action,
               const std::string &param) {
  for (const auto &r : d.reasons)
    if (r.action == action && r.param == param)
      return true;
  return false;
}

} // namespace

TEST(WidenDomain, PowersOfTwoGoTwoDoublingsWithinTheLimit) {
  KindLimits block{32, 1024, false};
  auto w = widenDomain(Domain::ofPow2Range(32, 256), "max", block);
  ASSERT_TRUE(w);
  EXPECT_TRUE(w->pow2);
  EXPECT_EQ(w->min, 32);
  EXPECT_EQ(w->max, 1024);
  // Clamped: only one doubling fits.
  w = widenDomain(Domain::ofValues({128, 256, 512}), "max", block);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->enumerate(), (std::vector<int64_t>{128, 256, 512, 1024}));
  // At the limit: nothing to add.
  EXPECT_FALSE(widenDomain(Domain::ofValues({256, 512, 1024}), "max", block));
  // Down, not below the limit.
  w = widenDomain(Domain::ofValues({64, 128}), "min", block);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->enumerate(), (std::vector<int64_t>{32, 64, 128}));
}

TEST(WidenDomain, VectorWidthsStayPowersOfTwoUpToSixteen) {
  KindLimits vec{1, 16, true};
  auto w = widenDomain(Domain::ofValues({2, 4}), "max", vec);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->enumerate(), (std::vector<int64_t>{2, 4, 8, 16}));
  w = widenDomain(Domain::ofValues({2, 4}), "min", vec);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->enumerate(), (std::vector<int64_t>{1, 2, 4}));
  EXPECT_FALSE(widenDomain(Domain::ofValues({8, 16}), "max", vec));
}

TEST(WidenDomain, ArithmeticDomainsKeepTheirStep) {
  KindLimits unroll{1, 32, false};
  auto w = widenDomain(Domain::ofRange(1, 6, 1), "max", unroll);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->form, Domain::Form::Range);
  EXPECT_EQ(w->min, 1);
  EXPECT_EQ(w->max, 9); // half the six values, in steps of one
  w = widenDomain(Domain::ofValues({3, 6, 9}), "max", unroll);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->enumerate(), (std::vector<int64_t>{3, 6, 9, 12, 15}));
  w = widenDomain(Domain::ofValues({3, 6, 9}), "min", unroll);
  EXPECT_FALSE(w); // 0 is below the limit
}

TEST(KindLimits, OtherHasNoSafeRange) {
  DeviceLimits device = assumedDeviceLimits();
  EXPECT_FALSE(kindLimits(ParamKind::Other, device));
  EXPECT_EQ(kindLimits(ParamKind::BlockSize, device)->max, 1024);
  EXPECT_EQ(kindLimits(ParamKind::VectorWidth, device)->max, 16);
  EXPECT_EQ(kindLimits(ParamKind::Unroll, device)->max, 32);
}

TEST(FixParameter, ConstraintsLoseTheNameOrDisappear) {
  PlanKernel k;
  k.params.push_back({"A", ParamKind::BlockSize, {"c1"}, {}, 256, {}, ""});
  k.params.push_back({"B", ParamKind::Unroll, {"c2"}, {}, 4, {}, ""});
  k.constraints = {"A % 32 == 0", "A * B <= 4096", "B >= 1"};
  fixParameter(k, "A", 256);
  ASSERT_EQ(k.params.size(), 1u);
  EXPECT_EQ(k.params[0].name, "B");
  ASSERT_EQ(k.constraints.size(), 2u);
  EXPECT_EQ(k.constraints[0], "256 * B <= 4096");
  EXPECT_EQ(k.constraints[1], "B >= 1");
}

TEST(RuleReplanner, WidensADomainWhoseBestSitsOnItsEdge) {
  RmsScale r;
  ASSERT_FALSE(r.block.empty());
  ASSERT_FALSE(r.items.empty());
  const PlanParam *items = param(r.plan, r.items);
  int64_t top = items->domain.enumerate().back();
  // More items per thread is always faster; the block size matters inside.
  auto a = analysis(r, [&](const Shape &, const Configuration &c) {
    return 100.0 / static_cast<double>(c.at(r.items)) +
           std::abs(std::log2(c.at(r.block) / 128.0)) * 5;
  });
  std::vector<KernelAnalysis> all{a};
  auto d = makeRuleReplanner()->replan(context(r, r.plan, all));
  ASSERT_TRUE(d) << d.error().str();
  EXPECT_TRUE(d->changed);
  EXPECT_TRUE(hasReason(*d, ReplanAction::Widen, r.items));
  const PlanParam *widened = param(d->plan, r.items);
  ASSERT_NE(widened, nullptr);
  EXPECT_GT(widened->domain.enumerate().back(), top);
  EXPECT_LE(widened->domain.enumerate().back(), 64);
  EXPECT_TRUE(widened->domain.contains(widened->defaultValue));
  EXPECT_TRUE(hasReason(*d, ReplanAction::Keep, r.block));
  EXPECT_TRUE(validatePlan(d->plan, r.candidates, r.sources).empty());
}

TEST(RuleReplanner, DropsAParameterWithinTheNoise) {
  RmsScale r;
  // Only the block size matters.
  auto a = analysis(r, [&](const Shape &, const Configuration &c) {
    return c.at(r.block) == 256 ? 10.0 : 12.0;
  });
  std::vector<KernelAnalysis> all{a};
  auto d = makeRuleReplanner()->replan(context(r, r.plan, all));
  ASSERT_TRUE(d) << d.error().str();
  EXPECT_TRUE(hasReason(*d, ReplanAction::Drop, r.items));
  EXPECT_EQ(param(d->plan, r.items), nullptr);
  EXPECT_NE(param(d->plan, r.block), nullptr);
  auto errors = validatePlan(d->plan, r.candidates, r.sources);
  EXPECT_TRUE(errors.empty()) << formatPlanErrors(errors);
}

TEST(RuleReplanner, NeverDropsTheLastParameter) {
  RmsScale r;
  Plan one = r.plan;
  PlanKernel &k = one.kernels.at(0);
  fixParameter(k, r.block, param(r.plan, r.block)->defaultValue);
  ASSERT_EQ(k.params.size(), 1u);
  SpaceDefinition d;
  d.params.push_back({r.items, k.params[0].domain, k.params[0].defaultValue});
  auto f = fabricate(
      d, {{{"rows", 1}}},
      [](const Shape &, const Configuration &) { return 5.0; }, 0.005);
  f.results.kernel = "rms_scale";
  for (auto &e : f.journal)
    e.key.kernel = "rms_scale";
  std::vector<KernelAnalysis> all{analyse(f)};
  auto dec = makeRuleReplanner()->replan(context(r, one, all));
  ASSERT_TRUE(dec);
  EXPECT_FALSE(hasReason(*dec, ReplanAction::Drop, r.items));
  EXPECT_TRUE(hasReason(*dec, ReplanAction::Keep, r.items));
  EXPECT_FALSE(dec->changed);
}

TEST(RuleReplanner, LiftsACandidateWhenFarFromTheRoofline) {
  RmsScale r;
  // 4.25e6 bytes per row: 4096 rows take 4096 us at the roofline; the
  // kernel needs twice that (50 %). Both parameters matter, inside.
  auto a = analysis(r, perRowTime(r, 2.0), 0.005, "4250000 * rows");
  ASSERT_TRUE(a.farFromRoofline);
  std::vector<KernelAnalysis> all{a};
  auto d = makeRuleReplanner()->replan(context(r, r.plan, all));
  ASSERT_TRUE(d) << d.error().str();
  EXPECT_TRUE(d->changed);
  const PlanParam *lifted = nullptr;
  for (const auto &p : d->plan.kernels.at(0).params)
    if (p.kind == ParamKind::Unroll)
      lifted = &p;
  ASSERT_NE(lifted, nullptr);
  EXPECT_EQ(lifted->candidates, std::vector<std::string>{"c_ur_41a1"});
  EXPECT_EQ(lifted->defaultValue, 4);
  EXPECT_TRUE(hasReason(*d, ReplanAction::Lift, lifted->name));
  EXPECT_TRUE(validatePlan(d->plan, r.candidates, r.sources).empty());

  // A retired candidate (dropped before) is not lifted again.
  auto ctx = context(r, r.plan, all);
  ctx.retiredCandidates = {"c_ur_41a1"};
  auto again = makeRuleReplanner()->replan(ctx);
  ASSERT_TRUE(again);
  EXPECT_FALSE(again->changed);
}

TEST(RuleReplanner, NearTheRooflineLiftsNothing) {
  RmsScale r;
  auto a = analysis(r, perRowTime(r, 1.05), 0.005, "4250000 * rows");
  ASSERT_FALSE(a.farFromRoofline);
  std::vector<KernelAnalysis> all{a};
  auto d = makeRuleReplanner()->replan(context(r, r.plan, all));
  ASSERT_TRUE(d);
  EXPECT_FALSE(d->changed);
  EXPECT_EQ(d->plan.kernels.at(0).params.size(),
            r.plan.kernels.at(0).params.size());
}

TEST(RuleReplanner, TheSpecsDomainsAreLeftAlone) {
  RmsScale r;
  auto a = analysis(r, [&](const Shape &, const Configuration &c) {
    return 100.0 / static_cast<double>(c.at(r.items)) +
           (c.at(r.block) == 256 ? 0.0 : 5.0);
  });
  std::vector<KernelAnalysis> all{a};
  auto ctx = context(r, r.plan, all);
  ctx.specDomains = {r.items};
  auto d = makeRuleReplanner()->replan(ctx);
  ASSERT_TRUE(d);
  EXPECT_FALSE(hasReason(*d, ReplanAction::Widen, r.items));
  EXPECT_EQ(param(d->plan, r.items)->domain.enumerate(),
            param(r.plan, r.items)->domain.enumerate());
}

TEST(TuningSummary, PassesThePlannersCheck) {
  RmsScale r;
  auto a = analysis(
      r,
      [&](const Shape &, const Configuration &c) {
        return 100.0 / static_cast<double>(c.at(r.items));
      },
      0.005, "4250000 * rows");
  std::vector<KernelAnalysis> all{a};
  auto summary = tuningSummary(context(r, r.plan, all));
  auto errors = planner::checkTuningSummary(summary);
  EXPECT_TRUE(errors.empty()) << (errors.empty() ? "" : errors[0].str());
  EXPECT_EQ(summary["ktune"], "tuning-summary/1");
  EXPECT_EQ(summary["round"], 1);
  const auto &k = summary["kernels"][0];
  EXPECT_EQ(k["kernel"], "rms_scale");
  EXPECT_EQ(k["edges_hit"][0]["param"], r.items);
  EXPECT_EQ(k["edges_hit"][0]["edge"], "max");
  EXPECT_EQ(k["unlifted_candidates"][0], "c_ur_41a1");
  EXPECT_TRUE(k["shapes"][0]["best"]["roofline_pct"].is_number());
}

TEST(GainStop, StopsWhenARoundGainsNoMoreThanTheNoise) {
  SpaceDefinition d;
  d.params.push_back({"B", Domain::ofValues({1, 2}), 1});
  auto round = [&](double scale, double noise) {
    return analyse(fabricate(
        d, {{{"n", 1}}, {{"n", 2}}},
        [scale](const Shape &s, const Configuration &c) {
          return scale * static_cast<double>(s.at("n") + c.at("B"));
        },
        noise));
  };
  auto first = round(1.0, 0.005);
  // 0.5 % faster with a 1 % floor: stop.
  auto stop = gainStop(2, {first}, {round(1.0 / 1.005, 0.005)});
  EXPECT_TRUE(stop.stop) << stop.reason;
  // 10 % faster: go on.
  auto go = gainStop(2, {first}, {round(1.0 / 1.1, 0.005)});
  EXPECT_FALSE(go.stop) << go.reason;
  // 3 % faster, but the timing noise is 4 %: stop.
  auto noisy = gainStop(2, {first}, {round(1.0 / 1.03, 0.04)});
  EXPECT_TRUE(noisy.stop) << noisy.reason;
  // Slower: stop.
  EXPECT_TRUE(gainStop(2, {first}, {round(1.2, 0.005)}).stop);
}

TEST(SameKernel, QualifiersDoNotMatter) {
  EXPECT_TRUE(sameKernel("ops::silu", "silu"));
  EXPECT_TRUE(sameKernel("silu", "ops::silu"));
  EXPECT_FALSE(sameKernel("ops::silu", "gelu"));
}
