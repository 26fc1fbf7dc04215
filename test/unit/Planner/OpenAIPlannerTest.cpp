// openai:<base_url> planners against a loopback server replaying recorded
// chat-completion replies (test/planner/replay_server.py).
#include "ktune/Planner/PlanWithValidation.h"
#include "ktune/Planner/Planner.h"

#include "PlannerTestSupport.h"

#include <gtest/gtest.h>

#include <netinet/in.h>
#include <sys/socket.h>

using namespace ktune;
using namespace ktune::planner;
using namespace ktune::planner::test;

namespace {

std::string scenarioPath(const std::string &name) {
  return (PlannerDir / "scenarios" / (name + ".json")).string();
}

PlannerOptions fastOptions() {
  PlannerOptions o;
  o.model = "replay-model";
  o.timeoutSeconds = 2;
  o.connectTimeoutSeconds = 2;
  o.backoffSeconds = 0.05;
  return o;
}

struct ScenarioRun {
  Expected<PlanningResult> result = makeError("not run");
  std::string messages;
  std::vector<nlohmann::json> requests;
};

ScenarioRun runScenario(const std::string &scenario, const TempDir &dir,
                        PlannerOptions options = fastOptions(),
                        bool strict = false) {
  ScenarioRun run;
  ReplayServer server(scenarioPath(scenario), dir / "requests.jsonl");
  auto planner = parsePlannerSpec("openai:" + server.baseUrl(), options);
  EXPECT_TRUE(planner) << planner.error().str();
  if (!planner)
    return run;
  PlanningOptions o;
  o.auditDir = dir / "audit";
  o.strict = strict;
  run.result = planWithValidation(**planner, fixtureRequest(), o);
  if (run.result)
    for (const auto &m : run.result->messages)
      run.messages += m + "\n";
  run.requests = readJsonLines(dir / "requests.jsonl");
  return run;
}

/// A loopback port nothing listens on.
int closedPort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  ::bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len);
  int port = ntohs(a.sin_port);
  ::close(fd);
  return port;
}

struct Scenario {
  const char *name;
  PlanningOutcome outcome;
  const char *message;
  size_t requests; // POSTs the server saw
};

void PrintTo(const Scenario &s, std::ostream *os) { *os << s.name; }

class HttpScenario : public ::testing::TestWithParam<Scenario> {
protected:
  void SetUp() override {
    if (!haveHttpPlanner())
      GTEST_SKIP() << "built without libcurl";
  }
};

class OpenAIPlannerTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (!haveHttpPlanner())
      GTEST_SKIP() << "built without libcurl";
  }
};

size_t posts(const std::vector<nlohmann::json> &requests) {
  size_t n = 0;
  for (const auto &r : requests)
    n += r["method"] == "POST";
  return n;
}

} // namespace

TEST_P(HttpScenario, EndsAsSpecified) {
  const Scenario &s = GetParam();
  TempDir dir;
  ScenarioRun run = runScenario(s.name, dir);
  ASSERT_TRUE(run.result) << run.result.error().str();
  EXPECT_EQ(run.result->outcome, s.outcome) << run.messages;
  EXPECT_NE(run.messages.find(s.message), std::string::npos) << run.messages;
  EXPECT_EQ(posts(run.requests), s.requests);
  PlannerRequest r = fixtureRequest();
  EXPECT_TRUE(validatePlan(run.result->plan, r.candidates, r.sources).empty());
  if (s.outcome == PlanningOutcome::Fallback) {
    Plan h = fixtureHeuristicPlan(r);
    h.planner = run.result->plan.planner;
    EXPECT_EQ(planToJson(run.result->plan), planToJson(h));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Replayed, HttpScenario,
    ::testing::Values(
        Scenario{"good", PlanningOutcome::Applied,
                 "plan accepted: 3 parameters", 1},
        Scenario{"fenced", PlanningOutcome::Applied,
                 "plan accepted: 2 parameters", 1},
        Scenario{"think", PlanningOutcome::Applied,
                 "plan accepted: 1 parameter", 1},
        Scenario{"vllm", PlanningOutcome::Applied,
                 "plan accepted: 2 parameters", 1},
        Scenario{"malformed", PlanningOutcome::Fallback, "does not parse", 2},
        Scenario{"prose", PlanningOutcome::Corrected, "holds no JSON object",
                 2},
        Scenario{"unknown-candidate", PlanningOutcome::Corrected,
                 "unknown candidate 'c_bs_9999'", 2},
        Scenario{"injection", PlanningOutcome::Fallback,
                 "is not a C++ identifier", 2},
        Scenario{"huge-domain", PlanningOutcome::Corrected, "1048576", 2},
        Scenario{"timeout", PlanningOutcome::Fallback,
                 "did not answer within 2 s", 1},
        Scenario{"http500", PlanningOutcome::Applied, "plan accepted", 2},
        Scenario{"http429", PlanningOutcome::Applied, "plan accepted", 2},
        Scenario{"http401", PlanningOutcome::Fallback,
                 "answered HTTP 401: invalid api key", 1},
        Scenario{"always500", PlanningOutcome::Fallback,
                 "answered HTTP 503 (3 attempts): overloaded", 3}),
    scenarioTestName);

TEST_F(OpenAIPlannerTest, RequestCarriesModelPromptAndKeyButTheAuditDoesNot) {
  ScopedEnv key("KTUNE_API_KEY", "secret-123");
  ScopedEnv other("OPENAI_API_KEY", "other-456");
  TempDir dir;
  ScenarioRun run = runScenario("unknown-candidate", dir);
  ASSERT_TRUE(run.result) << run.result.error().str();
  ASSERT_EQ(run.requests.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const auto &req = run.requests[i];
    EXPECT_EQ(req["path"], "/v1/chat/completions");
    EXPECT_EQ(req["headers"]["Authorization"], "Bearer secret-123");
    const auto &body = req["body"];
    EXPECT_EQ(body["model"], "replay-model");
    EXPECT_EQ(body["temperature"], 0);
    EXPECT_EQ(body["stream"], false);
    EXPECT_FALSE(body.contains("response_format"));
    ASSERT_EQ(body["messages"].size(), 1u);
    EXPECT_EQ(body["messages"][0]["role"], "user");
    std::string saved = readText(dir.path() / "audit" /
                                 (i == 0 ? "01-prompt.md" : "02-prompt.md"));
    EXPECT_EQ(body["messages"][0]["content"], saved);
  }
  EXPECT_NE(
      run.requests[1]["body"]["messages"][0]["content"].get<std::string>().find(
          "unknown candidate 'c_bs_9999'"),
      std::string::npos);
  auto verdict = readJsonFile(dir / "audit/01-verdict.json");
  ASSERT_TRUE(verdict);
  EXPECT_EQ((*verdict)["transport"]["api_key_from"], "KTUNE_API_KEY");
  EXPECT_EQ((*verdict)["transport"]["model"], "replay-model");
  auto files = filesUnder(dir.path() / "audit");
  EXPECT_EQ(files.size(), 8u); // prompt, reply, response, verdict per exchange
  for (const auto &[path, text] : files) {
    EXPECT_EQ(text.find("secret-123"), std::string::npos) << path;
    EXPECT_EQ(text.find("other-456"), std::string::npos) << path;
  }
  EXPECT_EQ(run.messages.find("secret-123"), std::string::npos);
}

TEST_F(OpenAIPlannerTest, KeyFallsBackToOpenAIVariableAndIsOptional) {
  {
    ScopedEnv key("KTUNE_API_KEY", std::nullopt);
    ScopedEnv other("OPENAI_API_KEY", "other-456");
    TempDir dir;
    ScenarioRun run = runScenario("good", dir);
    ASSERT_EQ(run.requests.size(), 1u);
    EXPECT_EQ(run.requests[0]["headers"]["Authorization"], "Bearer other-456");
  }
  {
    ScopedEnv key("KTUNE_API_KEY", std::nullopt);
    ScopedEnv other("OPENAI_API_KEY", std::nullopt);
    TempDir dir;
    ScenarioRun run = runScenario("good", dir);
    ASSERT_EQ(run.requests.size(), 1u);
    EXPECT_FALSE(run.requests[0]["headers"].contains("Authorization"));
  }
}

TEST_F(OpenAIPlannerTest, JsonModeAndMaxTokensAreSentWhenAsked) {
  PlannerOptions o = fastOptions();
  o.jsonMode = true;
  o.maxTokens = 2048;
  TempDir dir;
  ScenarioRun run = runScenario("good", dir, o);
  ASSERT_EQ(run.requests.size(), 1u);
  EXPECT_EQ(run.requests[0]["body"]["response_format"]["type"], "json_object");
  EXPECT_EQ(run.requests[0]["body"]["max_tokens"], 2048);
}

TEST_F(OpenAIPlannerTest, RetriesAreRecordedInTheVerdict) {
  TempDir dir;
  ScenarioRun run = runScenario("http500", dir);
  ASSERT_TRUE(run.result);
  auto verdict = readJsonFile(dir / "audit/01-verdict.json");
  ASSERT_TRUE(verdict);
  const auto &attempts = (*verdict)["transport"]["attempts"];
  ASSERT_EQ(attempts.size(), 2u);
  EXPECT_EQ(attempts[0]["http_status"], 500);
  EXPECT_EQ(attempts[1]["http_status"], 200);
  EXPECT_EQ((*verdict)["transport"]["finish_reason"], "stop");
}

TEST_F(OpenAIPlannerTest, EndpointDownIsAClearErrorAndAFallback) {
  PlannerOptions o = fastOptions();
  std::string url = "http://127.0.0.1:" + std::to_string(closedPort()) + "/v1";
  auto planner = parsePlannerSpec("openai:" + url, o);
  ASSERT_TRUE(planner);
  TempDir dir;
  PlanningOptions po;
  po.auditDir = dir / "audit";
  auto result = planWithValidation(**planner, fixtureRequest(), po);
  ASSERT_TRUE(result) << result.error().str();
  EXPECT_EQ(result->outcome, PlanningOutcome::Fallback);
  ASSERT_EQ(result->fallbackReasons.size(), 1u);
  EXPECT_NE(
      result->fallbackReasons[0].message.find(
          "planner endpoint " + url + "/chat/completions is not reachable"),
      std::string::npos)
      << result->fallbackReasons[0].message;
  EXPECT_NE(result->fallbackReasons[0].message.find("(3 attempts)"),
            std::string::npos);

  po.strict = true;
  auto strict = planWithValidation(**planner, fixtureRequest(), po);
  ASSERT_FALSE(strict);
  EXPECT_NE(strict.error().message.find("is not reachable"), std::string::npos);
}

TEST_F(OpenAIPlannerTest, WithoutAModelTheEndpointsOnlyModelIsUsed) {
  PlannerOptions o = fastOptions();
  o.model.clear();
  TempDir dir;
  ScenarioRun run = runScenario("models", dir, o);
  ASSERT_TRUE(run.result) << run.result.error().str();
  EXPECT_EQ(run.result->outcome, PlanningOutcome::Applied) << run.messages;
  ASSERT_EQ(run.requests.size(), 2u);
  EXPECT_EQ(run.requests[0]["path"], "/v1/models");
  EXPECT_EQ(run.requests[1]["body"]["model"], "only-model");

  TempDir dir2;
  ScenarioRun two = runScenario("two-models", dir2, o);
  ASSERT_TRUE(two.result) << two.result.error().str();
  EXPECT_EQ(two.result->outcome, PlanningOutcome::Fallback);
  EXPECT_NE(two.messages.find("no model given: pass --model or set KTUNE_MODEL "
                              "(the endpoint serves coder-7b, coder-32b)"),
            std::string::npos)
      << two.messages;
  EXPECT_EQ(posts(two.requests), 0u);
}

TEST_F(OpenAIPlannerTest, CredentialsInTheUrlAreNeverShown) {
  auto p = parsePlannerSpec("openai:https://user:pw@api.example.com/v1/", {});
  ASSERT_TRUE(p);
  EXPECT_EQ((*p)->describe(), "openai:https://api.example.com/v1");
}
