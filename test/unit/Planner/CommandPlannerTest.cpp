// command:<cmdline> planners: the process runner, and the recorded
// scenarios through planWithValidation.
#include "ktune/Planner/PlanWithValidation.h"
#include "ktune/Planner/Planner.h"
#include "ktune/Support/Process.h"

#include "PlannerTestSupport.h"

#include <gtest/gtest.h>

#include <chrono>

using namespace ktune;
using namespace ktune::planner;
using namespace ktune::planner::test;

TEST(RunShellCommand, PassesInputAndCollectsOutputs) {
  ProcessOptions o;
  o.environment["KTUNE_TEST_VALUE"] = "v1";
  auto r = runShellCommand(
      "cat; echo \"$KTUNE_TEST_VALUE\"; echo oops >&2; exit 7", "hello\n", o);
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->out, "hello\nv1\n");
  EXPECT_EQ(r->err, "oops\n");
  EXPECT_EQ(r->exitCode, 7);
  EXPECT_FALSE(r->timedOut);
}

TEST(RunShellCommand, LargeInputToACommandThatDoesNotReadIt) {
  // The command exits without reading: writing must end with EPIPE, not
  // kill this process with SIGPIPE.
  std::string big(4 << 20, 'x');
  auto r = runShellCommand("echo done", big, {});
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->out, "done\n");
  EXPECT_EQ(r->exitCode, 0);
}

TEST(RunShellCommand, LargeInputAndOutputTogetherDoNotDeadlock) {
  std::string big(2 << 20, 'y');
  auto r = runShellCommand("cat", big, {});
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->out.size(), big.size());
}

TEST(RunShellCommand, TimeoutKillsTheWholeProcessGroup) {
  ProcessOptions o;
  o.timeoutSeconds = 0.5;
  auto start = std::chrono::steady_clock::now();
  auto r = runShellCommand("sleep 30 & sleep 30; wait", "", o);
  double s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_TRUE(r->timedOut);
  EXPECT_LT(s, 5.0);
}

TEST(RunShellCommand, OutputOverTheLimitIsFlagged) {
  ProcessOptions o;
  o.maxOutputBytes = 1000;
  auto r = runShellCommand("head -c 5000 /dev/zero", "", o);
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_TRUE(r->outputTruncated);
  EXPECT_EQ(r->out.size(), 1000u);
}

namespace {

struct Scenario {
  const char *name;
  PlanningOutcome outcome;
  const char *message; // a line of the messages must contain this
};

void PrintTo(const Scenario &s, std::ostream *os) { *os << s.name; }

class CommandScenario : public ::testing::TestWithParam<Scenario> {};

} // namespace

TEST_P(CommandScenario, EndsAsSpecified) {
  const Scenario &s = GetParam();
  TempDir dir;
  std::string cmd =
      std::string("\"") + KTUNE_PYTHON + "\" \"" +
      (PlannerDir / "replay_command.py").string() + "\" --scenario \"" +
      (PlannerDir / "scenarios" / (std::string(s.name) + ".json")).string() +
      "\" --state \"" + (dir / "state") + "\" --save-prompts \"" +
      (dir / "prompts") + "\"";
  PlannerOptions options;
  options.timeoutSeconds = 2;
  auto planner = parsePlannerSpec("command:" + cmd, options);
  ASSERT_TRUE(planner) << planner.error().str();
  PlannerRequest r = fixtureRequest();
  PlanningOptions o;
  o.auditDir = dir / "audit";
  auto result = planWithValidation(**planner, r, o);
  ASSERT_TRUE(result) << result.error().str();
  std::string messages;
  for (const auto &m : result->messages)
    messages += m + "\n";
  EXPECT_EQ(result->outcome, s.outcome) << messages;
  EXPECT_NE(messages.find(s.message), std::string::npos) << messages;
  EXPECT_TRUE(validatePlan(result->plan, r.candidates, r.sources).empty());
  if (s.outcome == PlanningOutcome::Fallback) {
    Plan h = fixtureHeuristicPlan(r);
    h.planner = result->plan.planner;
    EXPECT_EQ(planToJson(result->plan), planToJson(h));
  }
  // What the command read on stdin is the saved prompt; a corrective round
  // carries the reasons.
  EXPECT_EQ(readText(dir.path() / "prompts/1-round1.md"),
            readText(dir.path() / "audit/01-prompt.md"));
  if (result->exchanges.size() == 2) {
    std::string second = readText(dir.path() / "prompts/2-round2.md");
    EXPECT_NE(second.find(formatPlanErrors(result->exchanges[0].reasons)),
              std::string::npos);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Replayed, CommandScenario,
    ::testing::Values(
        Scenario{"good", PlanningOutcome::Applied,
                 "plan accepted: 3 parameters"},
        Scenario{"fenced", PlanningOutcome::Applied,
                 "plan accepted: 2 parameters"},
        Scenario{"think", PlanningOutcome::Applied,
                 "plan accepted: 1 parameter"},
        Scenario{"vllm", PlanningOutcome::Applied, "plan accepted"},
        Scenario{"malformed", PlanningOutcome::Fallback, "does not parse"},
        Scenario{"prose", PlanningOutcome::Corrected, "holds no JSON object"},
        Scenario{"unknown-candidate", PlanningOutcome::Corrected,
                 "unknown candidate 'c_bs_9999'"},
        Scenario{"injection", PlanningOutcome::Fallback,
                 "is not a C++ identifier"},
        Scenario{"huge-domain", PlanningOutcome::Corrected, "1048576"},
        Scenario{"timeout", PlanningOutcome::Fallback,
                 "did not answer within 2 s and was killed"},
        Scenario{"http500", PlanningOutcome::Fallback, "exited with status 1"},
        Scenario{"crash", PlanningOutcome::Fallback,
                 "its stderr ends: my-agent: context window exceeded"}),
    scenarioTestName);

TEST(PlannerSpec, FormsAndMistakes) {
  auto h = parsePlannerSpec("heuristic", {});
  ASSERT_TRUE(h);
  EXPECT_EQ((*h)->describe(), "heuristic");
  EXPECT_FALSE((*h)->isTextPlanner());
  auto c = parsePlannerSpec("command:./my-agent --json", {});
  ASSERT_TRUE(c);
  EXPECT_EQ((*c)->describe(), "command:./my-agent --json");
  auto empty = parsePlannerSpec("command:  ", {});
  ASSERT_FALSE(empty);
  auto unknown = parsePlannerSpec("gpt4", {});
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("heuristic, command:<cmdline> or "
                                         "openai:<base_url>"),
            std::string::npos);
  EXPECT_FALSE(parsePlannerSpec("openai:127.0.0.1:8000/v1", {}));
}

TEST(PlannerOptions, ReadFromTheEnvironment) {
  ScopedEnv model("KTUNE_MODEL", "qwen2.5-coder");
  ScopedEnv timeout("KTUNE_PLANNER_TIMEOUT", "12.5");
  ScopedEnv json("KTUNE_PLANNER_JSON_MODE", "1");
  auto o = plannerOptionsFromEnvironment();
  ASSERT_TRUE(o) << o.error().str();
  EXPECT_EQ(o->model, "qwen2.5-coder");
  EXPECT_EQ(o->timeoutSeconds, 12.5);
  EXPECT_TRUE(o->jsonMode);
  ScopedEnv bad("KTUNE_PLANNER_TIMEOUT", "soon");
  auto e = plannerOptionsFromEnvironment();
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().where, "KTUNE_PLANNER_TIMEOUT");
}
