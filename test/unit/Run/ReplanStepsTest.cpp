// Re-plan actions and the steps of the rules, one by one
// (lib/Run/ReplanInternal.h).
#include "ReplanInternal.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace ktune;
using namespace ktune::run;
using namespace ktune::run::replan;

TEST(ReplanAction, NamesRoundTrip) {
  const std::vector<std::pair<ReplanAction, std::string>> all = {
      {ReplanAction::Widen, "widen"},     {ReplanAction::Drop, "drop"},
      {ReplanAction::Lift, "lift"},       {ReplanAction::Keep, "keep"},
      {ReplanAction::Planner, "planner"}, {ReplanAction::Note, "note"}};
  for (const auto &[action, name] : all) {
    EXPECT_EQ(replanActionName(action), name);
    EXPECT_EQ(parseReplanAction(name), action);
    std::ostringstream os;
    os << action;
    EXPECT_EQ(os.str(), name);
  }
  EXPECT_EQ(parseReplanAction("widened"), std::nullopt);
}

TEST(ReplanAction, JsonKeepsTheSpelling) {
  ReplanDecision d;
  d.replanner = "rules";
  d.reasons = {{"k", "BS", ReplanAction::Widen, "edge"},
               {"", "", ReplanAction::Note, "nothing else"}};
  auto j = replanDecisionToJson(d);
  EXPECT_EQ(j["reasons"][0]["action"], "widen");
  EXPECT_EQ(j["reasons"][0]["param"], "BS");
  EXPECT_EQ(j["reasons"][1]["action"], "note");
  EXPECT_FALSE(j["reasons"][1].contains("kernel"));
}

TEST(ReplanText, DomainsAndPercentages) {
  EXPECT_EQ(Domain::ofPow2Range(32, 1024).describe(), "powers of two 32..1024");
  EXPECT_EQ(Domain::ofRange(1, 8, 2).describe(), "1..8 step 2");
  EXPECT_EQ(Domain::ofRange(1, 8, 1).describe(), "1..8");
  EXPECT_EQ(Domain::ofValues({64, 128}).describe(), "{64, 128}");
  EXPECT_EQ(percent(12.345), "12.3%");
  EXPECT_TRUE(sameKernel("ops::detail::rmsnorm", "rmsnorm"));
  EXPECT_FALSE(sameKernel("ops::rmsnorm", "layernorm"));
}

TEST(ReplanText, RenameInConstraints) {
  EXPECT_EQ(expr::renameIdentifiers("BS % 32 == 0", {{"BS", "BS_2"}}),
            "BS_2 % 32 == 0");
  EXPECT_EQ(expr::renameIdentifiers("BS % 32 == 0", {}), "BS % 32 == 0");
  EXPECT_EQ(expr::renameIdentifiers("BS %", {{"BS", "X"}}),
            "BS %"); // unparsable: as is
}

namespace {

PlanParam param(const std::string &name, std::vector<std::string> candidates,
                Domain domain, int64_t value) {
  PlanParam p;
  p.name = name;
  p.candidates = std::move(candidates);
  p.domain = std::move(domain);
  p.defaultValue = value;
  return p;
}

} // namespace

TEST(ReplanSteps, DescribeChangesOfAPlannersPlan) {
  PlanKernel before, after;
  before.kernel = after.kernel = "k";
  before.params = {param("BS", {"c1"}, Domain::ofValues({128, 256}), 256),
                   param("VEC", {"c2"}, Domain::ofValues({4, 8}), 8)};
  after.params = {param("BS", {"c1"}, Domain::ofValues({128, 256, 512}), 256),
                  param("UNROLL", {"c3", "c4"}, Domain::ofValues({1, 2}), 1)};
  after.constraints = {"BS % 32 == 0"};
  std::vector<ReplanReason> out;
  describeChanges(&before, after, out);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].action, ReplanAction::Widen);
  EXPECT_EQ(out[1].action, ReplanAction::Lift);
  EXPECT_EQ(out[1].message,
            "the planner lifts c3, c4 as UNROLL with domain {1, 2}");
  EXPECT_EQ(out[2].action, ReplanAction::Drop);
  EXPECT_EQ(out[2].param, "VEC");
  EXPECT_EQ(out[3].action, ReplanAction::Note);
}

TEST(ReplanSteps, LiftedParamIsRenamedWithItsConstraints) {
  PlanKernel kernel;
  kernel.kernel = "k";
  kernel.params = {param("BS", {"c1"}, Domain::ofValues({128, 256}), 256)};
  PlanKernel wide = kernel;
  wide.params.push_back(param("BS", {"c2"}, Domain::ofValues({32, 64}), 64));
  wide.constraints = {"BS % 32 == 0", "BS * 2 <= OTHER"};
  PlanParam lifted = wide.params[1];
  PlanKernel attempt = withLiftedParam(kernel, wide, lifted);
  EXPECT_EQ(lifted.name, "BS_2");
  ASSERT_EQ(attempt.params.size(), 2u);
  EXPECT_EQ(attempt.params[1].name, "BS_2");
  // Only constraints over known names that mention the new parameter.
  EXPECT_EQ(attempt.constraints, std::vector<std::string>{"BS_2 % 32 == 0"});
}

TEST(ReplanSteps, FreeCandidatesExcludeLiftedAndDropped) {
  CandidateSet set;
  set.file = "k.cu";
  for (const char *id : {"c1", "c2", "c3", "c4"}) {
    Candidate c;
    c.id = id;
    c.kernel = "ops::k";
    set.candidates.push_back(c);
  }
  Plan plan;
  PlanKernel k;
  k.kernel = "k";
  k.params = {param("BS", {"c1"}, Domain::ofValues({128, 256}), 256),
              param("VEC", {"c2"}, Domain::ofValues({4, 8}), 8)};
  plan.kernels = {k};
  ReplanContext ctx;
  ctx.plan = &plan;
  ctx.candidates = &set;
  ctx.retiredCandidates = {"c4"};
  PlanKernel now = k;
  now.params.pop_back(); // VEC dropped this round
  auto free = freeCandidates(ctx, now, {"VEC"});
  ASSERT_EQ(free.size(), 1u);
  EXPECT_EQ(free[0]->id, "c3");
}

TEST(ReplanSteps, DropKeepsTheLastParameter) {
  KernelAnalysis a;
  a.influence = {{"BS", 0.5, 1.0, 2, true}};
  PlanKernel kernel;
  kernel.kernel = "k";
  kernel.params = {param("BS", {"c1"}, Domain::ofValues({128, 256}), 256)};
  ReplanDecision d;
  RuleReplanner keepLast(RuleOptions{});
  keepLast.dropInsensitive(a, kernel, {"BS"}, d);
  ASSERT_EQ(d.reasons.size(), 1u);
  EXPECT_EQ(d.reasons[0].action, ReplanAction::Keep);
  EXPECT_EQ(kernel.params.size(), 1u);
  RuleOptions options;
  options.keepLastParameter = false;
  RuleReplanner dropAll(options);
  dropAll.dropInsensitive(a, kernel, {"BS"}, d);
  ASSERT_EQ(d.reasons.size(), 2u);
  EXPECT_EQ(d.reasons[1].action, ReplanAction::Drop);
  EXPECT_EQ(d.reasons[1].message,
            "its largest effect on the best time, 0.5% over 2 shape(s), is "
            "within the noise threshold 1.0%: fixed to its default 256 "
            "(candidate c1 no longer lifted)");
  EXPECT_TRUE(kernel.params.empty());
}
