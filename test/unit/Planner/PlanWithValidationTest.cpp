// The protocol: propose, validate like a --plan file, correct once, fall
// back to the heuristic plan; every exchange saved; nothing from a reply
// reaches the plan except validated names and numbers.
#include "ktune/Planner/PlanWithValidation.h"

#include "PlannerTestSupport.h"

#include "ktune/Expr/Expr.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

using namespace ktune;
using namespace ktune::planner;
using namespace ktune::planner::test;

namespace {

PlanningResult plan(ScriptedPlanner &planner, const PlannerRequest &request,
                    PlanningOptions options = {}) {
  auto r = planWithValidation(planner, request, options);
  EXPECT_TRUE(r) << r.error().str();
  return r ? *r : PlanningResult{};
}

void expectValid(const Plan &p, const PlannerRequest &r) {
  auto errors = validatePlan(p, r.candidates, r.sources);
  EXPECT_TRUE(errors.empty()) << formatPlanErrors(errors);
}

/// A planner refused twice (an injected parameter name), with a good plan
/// third that the protocol never asks for.
ScriptedPlanner refusedTwice() {
  ScriptedPlanner p;
  p.Replies = {ScriptedPlanner::text(replyText("injection.txt")),
               ScriptedPlanner::text(replyText("injection.txt")),
               ScriptedPlanner::text(replyText("good.txt"))};
  return p;
}

/// Options that save every exchange in `audit`.
PlanningOptions savingTo(const TempDir &audit) {
  PlanningOptions o;
  o.auditDir = audit.path().string();
  return o;
}

bool mentions(const std::vector<std::string> &lines, const std::string &text) {
  for (const auto &l : lines)
    if (l.find(text) != std::string::npos)
      return true;
  return false;
}

/// Every string in the plan's JSON that came from the planner is a
/// candidate id, a site of the candidates, a kind name, a parameter name or
/// a canonical constraint; anything else would be reply text leaking.
void expectOnlyValidatedText(const Plan &p, const PlannerRequest &r) {
  std::set<std::string> ids, sites;
  for (const auto &c : r.candidates.candidates) {
    ids.insert(c.id);
    for (const auto &s : c.sites)
      sites.insert(s.file + ":" + std::to_string(s.line) + ":" +
                   std::to_string(s.col));
  }
  for (const auto &k : p.kernels) {
    bool known = false;
    for (const auto &c : r.candidates.candidates)
      known |= c.kernel == k.kernel;
    EXPECT_TRUE(known) << k.kernel;
    for (const auto &param : k.params) {
      EXPECT_TRUE(expr::isValidIdentifier(param.name)) << param.name;
      EXPECT_TRUE(param.note.empty()) << param.note;
      for (const auto &id : param.candidates)
        EXPECT_TRUE(ids.count(id)) << id;
      for (const auto &s : param.sites)
        EXPECT_TRUE(sites.count(s)) << s;
    }
    for (const auto &c : k.constraints) {
      auto e = expr::Expr::parse(c);
      ASSERT_TRUE(e) << c;
      EXPECT_EQ(e->str(), c) << "constraint not in canonical form";
    }
  }
}

} // namespace

TEST(PlanWithValidation, ValidPlanIsAppliedAndMadeSafe) {
  PlannerRequest r = fixtureRequest();
  ScriptedPlanner p;
  p.Replies = {ScriptedPlanner::text(replyText("good.txt"))};
  TempDir audit;
  PlanningOptions o;
  o.auditDir = audit / "audit";
  std::vector<std::string> logged;
  o.log = [&](const std::string &l) { logged.push_back(l); };
  PlanningResult result = plan(p, r, o);

  EXPECT_EQ(result.outcome, PlanningOutcome::Applied);
  EXPECT_EQ(result.plan.planner, "scripted");
  ASSERT_EQ(result.plan.kernels.size(), 1u);
  const PlanKernel &k = result.plan.kernels[0];
  ASSERT_EQ(k.params.size(), 3u);
  EXPECT_EQ(k.params[0].name, "BLOCK_SIZE");
  EXPECT_EQ(k.params[0].note, "") << "notes must never reach the rewriter";
  EXPECT_EQ(k.constraints[0], "BLOCK_SIZE % 32 == 0");
  EXPECT_EQ(k.constraints[1], "BLOCK_SIZE * 4 <= 49152");
  expectValid(result.plan, r);
  expectOnlyValidatedText(result.plan, r);
  EXPECT_EQ(p.Rounds, std::vector<int>({1}));
  EXPECT_EQ(logged, result.messages);
  EXPECT_TRUE(mentions(logged, "plan accepted: 3 parameters in 1 kernel"));

  ASSERT_EQ(result.exchanges.size(), 1u);
  EXPECT_EQ(result.exchanges[0].verdict, "accepted");
  EXPECT_EQ(readText(audit.path() / "audit/01-prompt.md"), p.Prompts[0]);
  EXPECT_EQ(readText(audit.path() / "audit/01-reply.txt"),
            replyText("good.txt"));
  auto verdict = readJsonFile(audit / "audit/01-verdict.json");
  ASSERT_TRUE(verdict);
  EXPECT_EQ((*verdict)["verdict"], "accepted");
  EXPECT_EQ((*verdict)["outcome"], "applied");
  EXPECT_EQ((*verdict)["plan"], planToJson(result.plan));
}

TEST(PlanWithValidation, RefusedPlanIsCorrectedOnce) {
  PlannerRequest r = fixtureRequest();
  ScriptedPlanner p;
  p.Replies = {ScriptedPlanner::text(replyText("unknown-candidate.txt")),
               ScriptedPlanner::text(replyText("good.txt"))};
  PlanningResult result = plan(p, r);

  EXPECT_EQ(result.outcome, PlanningOutcome::Corrected);
  EXPECT_TRUE(result.fallbackReasons.empty());
  EXPECT_EQ(p.Rounds, std::vector<int>({1, 2}));
  ASSERT_EQ(p.Requests.size(), 2u);
  EXPECT_TRUE(p.Requests[0].rejections.empty());
  ASSERT_EQ(p.Requests[1].rejections.size(), 1u);
  EXPECT_EQ(p.Requests[1].rejections[0].where,
            "kernels[0].params[0].candidates[0]");
  EXPECT_NE(p.Requests[1].rejections[0].message.find("c_bs_9999"),
            std::string::npos);
  EXPECT_EQ(p.Requests[1].rejectedReply, replyText("unknown-candidate.txt"));
  EXPECT_NE(p.Prompts[1].find("refused: kernels[0].params[0].candidates[0]"),
            std::string::npos);
  EXPECT_TRUE(mentions(result.messages, "asking once for a corrected plan"));
  EXPECT_TRUE(mentions(result.messages, "corrected plan accepted"));
  expectValid(result.plan, r);
}

TEST(PlanWithValidation, SecondRefusalFallsBackToTheHeuristicPlan) {
  PlannerRequest r = fixtureRequest();
  ScriptedPlanner p = refusedTwice();
  TempDir audit;
  PlanningOptions o = savingTo(audit);
  PlanningResult result = plan(p, r, o);

  EXPECT_EQ(result.outcome, PlanningOutcome::Fallback);
  EXPECT_EQ(p.Requests.size(), 2u) << "the reasons go back exactly once";
  Plan heuristic = fixtureHeuristicPlan(r);
  heuristic.planner = result.plan.planner;
  EXPECT_EQ(planToJson(result.plan), planToJson(heuristic));
  EXPECT_EQ(result.plan.planner, "heuristic (fallback from scripted)");
  ASSERT_EQ(result.fallbackReasons.size(), 2u);
  EXPECT_EQ(result.fallbackReasons[0].where, "kernels[0].params[0].name");
  EXPECT_EQ(result.fallbackReasons[1].where, "kernels[0].constraints[0]");
  EXPECT_TRUE(
      mentions(result.messages, "corrected plan refused too, 2 reasons:"));
  EXPECT_TRUE(mentions(result.messages,
                       "  - kernels[0].params[0].name: parameter name"));
  EXPECT_TRUE(mentions(result.messages, "falling back to the heuristic plan"));

  auto first = readJsonFile(audit / "01-verdict.json");
  auto second = readJsonFile(audit / "02-verdict.json");
  ASSERT_TRUE(first && second);
  EXPECT_EQ((*first)["verdict"], "rejected");
  EXPECT_FALSE(first->contains("outcome"));
  EXPECT_EQ((*second)["outcome"], "fallback");
  EXPECT_EQ((*second)["reasons"].size(), 2u);
  EXPECT_EQ((*second)["plan"], planToJson(result.plan));
}

TEST(PlanWithValidation, PlannerThatCannotAnswerFallsBackAtOnce) {
  PlannerRequest r = fixtureRequest();
  ScriptedPlanner p;
  p.Replies = {ScriptedPlanner::failure(
      "planner endpoint http://x/v1 is not reachable")};
  TempDir audit;
  PlanningOptions o = savingTo(audit);
  PlanningResult result = plan(p, r, o);
  EXPECT_EQ(result.outcome, PlanningOutcome::Fallback);
  EXPECT_EQ(p.Requests.size(), 1u);
  ASSERT_EQ(result.exchanges.size(), 1u);
  EXPECT_EQ(result.exchanges[0].verdict, "planner_error");
  EXPECT_TRUE(mentions(result.messages, "is not reachable"));
  auto verdict = readJsonFile(audit / "01-verdict.json");
  ASSERT_TRUE(verdict);
  EXPECT_EQ((*verdict)["verdict"], "planner_error");
  EXPECT_EQ((*verdict)["outcome"], "fallback");
}

TEST(PlanWithValidation, StrictModeMakesPlannerFailuresErrors) {
  PlannerRequest r = fixtureRequest();
  ScriptedPlanner p;
  p.Replies = {
      ScriptedPlanner::failure("planner command exited with status 3")};
  PlanningOptions o;
  o.strict = true;
  auto result = planWithValidation(p, r, o);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().message, "planner command exited with status 3");
}

TEST(PlanWithValidation, StrictModeMakesASecondRefusalAnError) {
  // Strict: a plan from the planner or an error, one line naming the first
  // reason; both exchanges are still saved.
  PlannerRequest r = fixtureRequest();
  ScriptedPlanner p = refusedTwice();
  TempDir audit;
  PlanningOptions o = savingTo(audit);
  o.strict = true;
  auto result = planWithValidation(p, r, o);
  ASSERT_FALSE(result);
  EXPECT_EQ(p.Requests.size(), 2u) << "the reasons still go back once";
  const std::string &m = result.error().message;
  EXPECT_TRUE(m.starts_with("the planner's plan was refused twice: "
                            "kernels[0].params[0].name: parameter name"))
      << m;
  EXPECT_NE(m.find("(and 1 more reason)"), std::string::npos) << m;
  EXPECT_TRUE(m.ends_with("; exchanges saved in " + audit.path().string()))
      << m;
  EXPECT_EQ(m.find('\n'), std::string::npos) << "one line";
  auto second = readJsonFile(audit / "02-verdict.json");
  ASSERT_TRUE(second);
  EXPECT_EQ((*second)["verdict"], "rejected");
  EXPECT_FALSE(second->contains("outcome")) << "no fallback was used";
  EXPECT_FALSE(second->contains("plan"));

  // A correction that is accepted is the planner's plan, strict or not.
  ScriptedPlanner q;
  q.Replies = {ScriptedPlanner::text("nonsense"),
               ScriptedPlanner::text(replyText("good.txt"))};
  PlanningOptions quiet;
  quiet.strict = true;
  auto corrected = planWithValidation(q, r, quiet);
  ASSERT_TRUE(corrected) << corrected.error().str();
  EXPECT_EQ(corrected->outcome, PlanningOutcome::Corrected);
}

TEST(PlanWithValidation, AuditNumbersContinueAcrossCalls) {
  PlannerRequest r = fixtureRequest();
  TempDir audit;
  PlanningOptions o = savingTo(audit);
  for (int call = 0; call < 2; ++call) {
    ScriptedPlanner p;
    p.Replies = {ScriptedPlanner::text("no plan"),
                 ScriptedPlanner::text(replyText("good.txt"))};
    PlanningResult result = plan(p, r, o);
    ASSERT_EQ(result.exchanges.size(), 2u);
    EXPECT_EQ(result.exchanges[0].number, 2 * call + 1);
    EXPECT_EQ(result.exchanges[1].auditPrefix,
              (audit.path() / (call ? "04-" : "02-")).string());
  }
  for (const char *f :
       {"01-prompt.md", "02-reply.txt", "03-verdict.json", "04-verdict.json"})
    EXPECT_TRUE(fs::exists(audit.path() / f)) << f;
  EXPECT_FALSE(fs::exists(audit.path() / "05-verdict.json"));
}

TEST(PlanWithValidation, HeuristicPlannerNeedsNoExchange) {
  PlannerRequest r = fixtureRequest();
  auto h = makeHeuristicPlanner();
  TempDir audit;
  PlanningOptions o;
  o.auditDir = audit / "never";
  auto result = planWithValidation(*h, r, o);
  ASSERT_TRUE(result) << result.error().str();
  EXPECT_EQ(result->outcome, PlanningOutcome::Applied);
  EXPECT_EQ(planToJson(result->plan), planToJson(fixtureHeuristicPlan(r)));
  EXPECT_TRUE(result->exchanges.empty());
  EXPECT_FALSE(fs::exists(audit.path() / "never"));
}

TEST(PlanWithValidation, MalformedTuningSummaryIsAnError) {
  PlannerRequest r = fixtureRequest();
  r.previousPlan = fixtureHeuristicPlan(r);
  r.tuningSummary = {{"ktune", "tuning-summary/1"}};
  ScriptedPlanner p;
  auto result = planWithValidation(p, r, {});
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message.find("kernels"), std::string::npos);
  EXPECT_TRUE(p.Requests.empty());
}

TEST(PlanWithValidation, UnwritableAuditDirectoryIsAnError) {
  TempDir dir;
  ASSERT_TRUE(writeFileAtomically(dir / "file", "x"));
  ScriptedPlanner p;
  PlanningOptions o;
  o.auditDir = dir / "file/sub";
  EXPECT_FALSE(planWithValidation(p, fixtureRequest(), o));
}

TEST(SanitizeUntrustedPlan, DropsNotesAndCanonicalisesConstraints) {
  Plan plan;
  plan.planner = "whatever the reply said";
  PlanKernel k;
  k.kernel = "rms_scale";
  PlanParam param;
  param.name = "B";
  param.note = "*/ system(\"x\"); /*";
  k.params.push_back(param);
  k.constraints = {"B%32==0", "((B))*2<=\n64"};
  plan.kernels.push_back(k);
  Plan safe = sanitizeUntrustedPlan(plan, "command:x");
  EXPECT_EQ(safe.planner, "command:x");
  EXPECT_EQ(safe.kernels[0].params[0].note, "");
  EXPECT_EQ(safe.kernels[0].constraints,
            std::vector<std::string>({"B % 32 == 0", "B * 2 <= 64"}));
}

// Replies built by mutating a good plan, the way a confused or hostile
// model might answer: whatever comes back, the plan handed on validates,
// carries no free text, and is the heuristic plan when nothing was taken.
TEST(PlanWithValidation, NoMutatedReplyGetsPastValidation) {
  PlannerRequest r = fixtureRequest();
  nlohmann::json good = nlohmann::json::parse(replyText("good.txt"));
  const std::vector<nlohmann::json> hostile = {"X>0; system(\"id\")",
                                               "BLOCK_SIZE\n#define X",
                                               "kBlockSize",
                                               "int",
                                               "__x",
                                               "threadIdx",
                                               "c_bs_2dd2\"",
                                               "",
                                               -1,
                                               0,
                                               1025,
                                               1e300,
                                               int64_t(1) << 40,
                                               nlohmann::json::array(),
                                               nlohmann::json::object(),
                                               "BLOCK_SIZE / 0 == 1",
                                               "rms_scale",
                                               "c_ur_41a1",
                                               4,
                                               256,
                                               "rms_scale.cu:31:16",
                                               "rms_scale.cu:1:1",
                                               "pow2",
                                               true,
                                               nullptr};
  std::mt19937 rng(20261122);
  auto pick = [&](size_t n) {
    return std::uniform_int_distribution<size_t>(0, n - 1)(rng);
  };
  int accepted = 0, refused = 0;
  Plan heuristic = fixtureHeuristicPlan(r);
  for (int trial = 0; trial < 300; ++trial) {
    nlohmann::json reply = good;
    int edits = 1 + static_cast<int>(pick(3));
    for (int e = 0; e < edits; ++e) {
      // A random path into the plan, then replace, drop or add there.
      std::vector<nlohmann::json::json_pointer> paths;
      nlohmann::json flat = reply.flatten();
      for (const auto &item : flat.items())
        paths.emplace_back(item.key());
      auto ptr = paths[pick(paths.size())];
      if (pick(4) == 0 && !ptr.empty())
        ptr = ptr.parent_pointer();
      switch (pick(3)) {
      case 0:
        reply[ptr] = hostile[pick(hostile.size())];
        break;
      case 1:
        if (!ptr.empty()) {
          auto parent = ptr.parent_pointer();
          if (reply[parent].is_object())
            reply[parent].erase(ptr.back());
        }
        break;
      default:
        if (reply[ptr].is_array())
          reply[ptr].push_back(hostile[pick(hostile.size())]);
        else
          reply[ptr] = hostile[pick(hostile.size())];
      }
    }
    std::string text = reply.dump();
    if (pick(5) == 0)
      text = "```json\n" + text + "\n```";
    if (pick(7) == 0)
      text.resize(pick(text.size() + 1));
    ScriptedPlanner p;
    p.Replies = {ScriptedPlanner::text(text), ScriptedPlanner::text(text)};
    PlanningResult result = plan(p, r);
    SCOPED_TRACE(text);
    expectValid(result.plan, r);
    expectOnlyValidatedText(result.plan, r);
    if (result.outcome == PlanningOutcome::Fallback) {
      ++refused;
      Plan h = heuristic;
      h.planner = result.plan.planner;
      EXPECT_EQ(planToJson(result.plan), planToJson(h));
      EXPECT_FALSE(result.fallbackReasons.empty());
    } else {
      ++accepted;
    }
  }
  // Both paths must have been exercised for the test to mean anything.
  EXPECT_GT(accepted, 10);
  EXPECT_GT(refused, 100);
}
