//===- ChoosePlanTest.cpp - One plan chooser for ktune-refactor and ktune run //
#include "ktune/Planner/ChoosePlan.h"

#include "PlannerTestSupport.h"

#include <gtest/gtest.h>

using namespace ktune;
using namespace ktune::planner;
using namespace ktune::planner::test;

namespace {

size_t paramsIn(const Plan &plan, const std::string &kernel) {
  for (const auto &k : plan.kernels)
    if (sameKernel(k.kernel, kernel))
      return k.params.size();
  return 0;
}

std::string writePlan(const TempDir &dir, const std::string &name,
                      const nlohmann::json &plan) {
  std::string path = dir / name;
  EXPECT_TRUE(writeFileAtomically(path, plan.dump(2)));
  return path;
}

} // namespace

TEST(ChoosePlan, HeuristicPlanByDefault) {
  PlannerRequest request = fixtureRequest();
  auto chosen = choosePlan(request, {});
  ASSERT_TRUE(chosen) << chosen.error().front().str();
  EXPECT_EQ(chosen->origin, "heuristic");
  EXPECT_FALSE(chosen->planning);
  Plan expected = fixtureHeuristicPlan(request);
  EXPECT_EQ(planToJson(chosen->plan), planToJson(expected));
}

TEST(ChoosePlan, HeuristicPlannerIsNotATextPlanner) {
  PlannerRequest request = fixtureRequest();
  auto heuristic = parsePlannerSpec("heuristic", PlannerOptions{});
  ASSERT_TRUE(heuristic);
  PlanChoice choice;
  choice.planner = heuristic->get();
  auto chosen = choosePlan(request, choice);
  ASSERT_TRUE(chosen);
  EXPECT_EQ(chosen->origin, "heuristic");
  EXPECT_FALSE(chosen->planning);
}

TEST(ChoosePlan, WidensConfidenceOnlyForKernelsToTune) {
  PlannerRequest request = fixtureRequest();
  for (auto &c : request.candidates.candidates)
    c.confidence = Confidence::Medium;

  // Nothing to tune named: the plan is the high-confidence one (empty).
  auto plain = choosePlan(request, {});
  ASSERT_TRUE(plain);
  EXPECT_EQ(paramsIn(plain->plan, "rms_scale"), 0u);
  EXPECT_EQ(plain->origin, "heuristic");

  std::vector<std::string> logged;
  PlanChoice choice;
  choice.kernels = {"rms_scale"};
  choice.log = [&](const std::string &line) { logged.push_back(line); };
  auto wider = choosePlan(request, choice);
  ASSERT_TRUE(wider) << wider.error().front().str();
  EXPECT_GT(paramsIn(wider->plan, "rms_scale"), 0u);
  EXPECT_EQ(wider->origin,
            "heuristic (medium-confidence candidates for rms_scale)");
  ASSERT_EQ(logged.size(), 1u);
  EXPECT_EQ(logged[0], "plan: no high-confidence candidate in rms_scale: "
                       "lifting medium-confidence ones");
}

TEST(ChoosePlan, PlanFileIsValidatedAndNamed) {
  TempDir dir;
  PlannerRequest request = fixtureRequest();
  std::string good =
      writePlan(dir, "good.json", planToJson(fixtureHeuristicPlan(request)));
  PlanChoice choice;
  choice.planPath = good;
  auto chosen = choosePlan(request, choice);
  ASSERT_TRUE(chosen) << chosen.error().front().str();
  EXPECT_EQ(chosen->origin, "file " + good);
  EXPECT_GT(paramsIn(chosen->plan, "rms_scale"), 0u);

  // Limited to the kernels to tune.
  choice.kernels = {"another_kernel"};
  auto limited = choosePlan(request, choice);
  ASSERT_TRUE(limited);
  EXPECT_TRUE(limited->plan.kernels.empty());

  // Every reason, each naming the file.
  nlohmann::json bad = planToJson(fixtureHeuristicPlan(request));
  bad["kernels"][0]["params"][0]["candidates"] = {"c_nope"};
  bad["kernels"][0]["params"][0]["default"] = 7;
  choice.planPath = writePlan(dir, "bad.json", bad);
  auto refused = choosePlan(request, choice);
  ASSERT_FALSE(refused);
  ASSERT_GE(refused.error().size(), 1u);
  for (const Error &e : refused.error())
    EXPECT_EQ(e.str().rfind(choice.planPath + ": kernels[0]", 0), 0u)
        << e.str();

  choice.planPath = dir / "missing.json";
  auto missing = choosePlan(request, choice);
  ASSERT_FALSE(missing);
  ASSERT_EQ(missing.error().size(), 1u);
  EXPECT_NE(missing.error()[0].str().find("missing.json"), std::string::npos);
}

TEST(ChoosePlan, TextPlannerThroughPlanWithValidation) {
  TempDir dir;
  PlannerRequest request = fixtureRequest();
  ScriptedPlanner planner;
  planner.Replies = {
      ScriptedPlanner::text(planToJson(fixtureHeuristicPlan(request)).dump())};
  PlanChoice choice;
  choice.planner = &planner;
  choice.planning.auditDir = dir / "audit";
  choice.kernels = {"rms_scale"};
  auto chosen = choosePlan(request, choice);
  ASSERT_TRUE(chosen) << chosen.error().front().str();
  EXPECT_EQ(chosen->origin, "scripted (applied)");
  ASSERT_TRUE(chosen->planning);
  EXPECT_EQ(chosen->planning->planner, "scripted");
  EXPECT_FALSE(chosen->planning->messages.empty());
  EXPECT_GT(paramsIn(chosen->plan, "rms_scale"), 0u);
  EXPECT_TRUE(fs::exists(dir / "audit"));

  // Strict: a planner that cannot answer is one error.
  ScriptedPlanner silent;
  silent.Replies = {ScriptedPlanner::failure("planner is down")};
  choice.planner = &silent;
  choice.planning.strict = true;
  auto failed = choosePlan(request, choice);
  ASSERT_FALSE(failed);
  ASSERT_EQ(failed.error().size(), 1u);
  EXPECT_EQ(failed.error()[0].message, "planner is down");
}

TEST(ChoosePlan, RestrictAndSameKernel) {
  Plan plan;
  plan.kernels.resize(2);
  plan.kernels[0].kernel = "ops::silu";
  plan.kernels[1].kernel = "gelu";
  EXPECT_EQ(restrictPlan(plan, {}).kernels.size(), 2u);
  Plan silu = restrictPlan(plan, {"silu"});
  ASSERT_EQ(silu.kernels.size(), 1u);
  EXPECT_EQ(silu.kernels[0].kernel, "ops::silu");
  EXPECT_TRUE(restrictPlan(plan, {"relu"}).kernels.empty());
  EXPECT_TRUE(sameKernel("a::k", "b::k"));
  EXPECT_FALSE(sameKernel("k", "kk"));
}

TEST(ConfigurePlanner, FlagsOverTheEnvironment) {
  ScopedEnv model("KTUNE_MODEL", "from-env");
  ScopedEnv timeout("KTUNE_PLANNER_TIMEOUT", "40");
  PlannerFlags flags;
  auto fromEnv = configurePlanner(flags);
  ASSERT_TRUE(fromEnv) << fromEnv.error().str();
  EXPECT_EQ(fromEnv->options.model, "from-env");
  EXPECT_EQ(fromEnv->options.timeoutSeconds, 40);
  EXPECT_FALSE(fromEnv->planner->isTextPlanner());

  flags.spec = "command:./agent --json";
  flags.model = "m";
  flags.timeoutSeconds = 5;
  flags.attempts = 7;
  flags.jsonMode = true;
  flags.promptTemplate = "t.md";
  flags.planSchema = "s.json";
  auto configured = configurePlanner(flags);
  ASSERT_TRUE(configured) << configured.error().str();
  EXPECT_EQ(configured->options.model, "m");
  EXPECT_EQ(configured->options.timeoutSeconds, 5);
  EXPECT_EQ(configured->options.attempts, 7);
  EXPECT_TRUE(configured->options.jsonMode);
  EXPECT_EQ(configured->options.prompt.templatePath, "t.md");
  EXPECT_EQ(configured->options.prompt.schemaPath, "s.json");
  EXPECT_TRUE(configured->planner->isTextPlanner());
  EXPECT_EQ(configured->planner->describe(), "command:./agent --json");
}

TEST(ConfigurePlanner, ErrorsNameWhatIsWrong) {
  PlannerFlags flags;
  flags.spec = "gpt-4";
  auto unknown = configurePlanner(flags);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(
      unknown.error().str().rfind("--planner: unknown planner 'gpt-4'", 0), 0u);

  flags.spec = "heuristic";
  flags.timeoutSeconds = 0;
  auto zero = configurePlanner(flags);
  ASSERT_FALSE(zero);
  EXPECT_EQ(zero.error().str(),
            "--planner-timeout must be a positive number of seconds");

  ScopedEnv bad("KTUNE_PLANNER_TIMEOUT", "soon");
  flags.timeoutSeconds.reset();
  auto env = configurePlanner(flags);
  ASSERT_FALSE(env);
  EXPECT_EQ(env.error().where, "KTUNE_PLANNER_TIMEOUT");
}

TEST(ReadCandidateSources, RootThenCandidatesDirThenWorkingDir) {
  PlannerRequest request = fixtureRequest();
  std::string candidates = (PlannerDir / "Inputs/rms_scale.candidates.json");
  auto beside = readCandidateSources(request.candidates, candidates, {});
  ASSERT_TRUE(beside) << beside.error().str();
  EXPECT_EQ(beside->at("rms_scale.cu"), request.sources.at("rms_scale.cu"));

  auto rooted = readCandidateSources(request.candidates, "elsewhere.json",
                                     (PlannerDir / "Inputs").string());
  ASSERT_TRUE(rooted) << rooted.error().str();

  auto missing =
      readCandidateSources(request.candidates, candidates, "/nonexistent");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().str(),
            "rms_scale.cu: cannot find the source file the candidates name "
            "(looked in /nonexistent/rms_scale.cu; see --source-root)");
}
