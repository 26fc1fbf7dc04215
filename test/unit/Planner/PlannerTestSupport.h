//===- PlannerTestSupport.h - Fixtures for the planner tests ----*- C++ -*-===//
#ifndef KTUNE_TEST_UNIT_PLANNER_PLANNERTESTSUPPORT_H
#define KTUNE_TEST_UNIT_PLANNER_PLANNERTESTSUPPORT_H

#include "ktune/Plan/Plan.h"
#include "ktune/Planner/PlanWithValidation.h"
#include "ktune/Planner/Planner.h"
#include "ktune/Support/FileUtil.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace ktune::planner::test {

namespace fs = std::filesystem;

inline const fs::path PlannerDir = fs::path(KTUNE_SOURCE_DIR) / "test/planner";

inline std::string readText(const fs::path &p) {
  auto t = readFile(p.string());
  if (!t)
    ADD_FAILURE() << t.error().str();
  return t ? *t : std::string();
}

inline std::string replyText(const std::string &name) {
  return readText(PlannerDir / "replies" / name);
}

/// The hand-written kernel and its candidates (test/planner/Inputs).
inline PlannerRequest fixtureRequest() {
  PlannerRequest r;
  auto json =
      readJsonFile((PlannerDir / "Inputs/rms_scale.candidates.json").string());
  EXPECT_TRUE(json) << json.error().str();
  auto set = candidatesFromJson(*json);
  EXPECT_TRUE(set) << set.error().str();
  r.candidates = *set;
  r.file = r.candidates.file;
  r.sources[r.file] = readText(PlannerDir / "Inputs/rms_scale.cu");
  return r;
}

inline Plan fixtureHeuristicPlan(const PlannerRequest &r) {
  HeuristicOptions h;
  h.sources = &r.sources;
  return heuristicPlan(r.candidates, h);
}

/// A fresh directory under the system's temporary directory.
class TempDir {
public:
  TempDir() {
    std::string tmpl =
        (fs::temp_directory_path() / "ktune-planner-XXXXXX").string();
    if (!mkdtemp(tmpl.data()))
      ADD_FAILURE() << "mkdtemp failed";
    Path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(Path, ec);
  }
  const fs::path &path() const { return Path; }
  std::string operator/(const std::string &name) const {
    return (Path / name).string();
  }

private:
  fs::path Path;
};

/// Sets (or unsets, with nullopt) an environment variable for one scope.
class ScopedEnv {
public:
  ScopedEnv(std::string name, std::optional<std::string> value)
      : Name(std::move(name)) {
    if (const char *old = std::getenv(Name.c_str()))
      Old = old;
    if (value)
      ::setenv(Name.c_str(), value->c_str(), 1);
    else
      ::unsetenv(Name.c_str());
  }
  ~ScopedEnv() {
    if (Old)
      ::setenv(Name.c_str(), Old->c_str(), 1);
    else
      ::unsetenv(Name.c_str());
  }

private:
  std::string Name;
  std::optional<std::string> Old;
};

/// Answers from a script, and remembers what it was asked.
class ScriptedPlanner final : public Planner {
public:
  std::vector<PlannerReply> Replies;
  std::vector<PlannerRequest> Requests;
  std::vector<std::string> Prompts;
  std::vector<int> Rounds;

  static PlannerReply text(std::string t) {
    PlannerReply r;
    r.text = std::move(t);
    return r;
  }
  static PlannerReply failure(std::string message) {
    PlannerReply r;
    r.failure = Error{std::move(message), {}};
    return r;
  }

  std::string describe() const override { return "scripted"; }
  Expected<std::string> prompt(const PlannerRequest &request) const override {
    std::string p = "prompt for " + request.file;
    for (const auto &e : request.rejections)
      p += "\nrefused: " + e.str();
    return p;
  }
  PlannerReply propose(const PlannerRequest &request, const std::string &prompt,
                       int round) override {
    Requests.push_back(request);
    Prompts.push_back(prompt);
    Rounds.push_back(round);
    if (Requests.size() > Replies.size())
      return failure("script exhausted");
    return Replies[Requests.size() - 1];
  }
};

/// test/planner/replay_server.py on a free loopback port, for one test.
class ReplayServer {
public:
  explicit ReplayServer(const std::string &scenario, const std::string &log) {
    std::string command = std::string("exec \"") + KTUNE_PYTHON + "\" \"" +
                          (PlannerDir / "replay_server.py").string() +
                          "\" --scenario \"" + scenario + "\" --log \"" + log +
                          "\"";
    Pipe = ::popen(command.c_str(), "r");
    if (!Pipe) {
      ADD_FAILURE() << "cannot start " << command;
      return;
    }
    char line[128] = {0};
    if (!std::fgets(line, sizeof line, Pipe) ||
        std::sscanf(line, "PORT %d PID %d", &Port, &Pid) != 2)
      ADD_FAILURE() << "replay server did not print its port: " << line;
  }
  ~ReplayServer() {
    if (Pid > 0)
      ::kill(Pid, SIGTERM);
    if (Pipe)
      ::pclose(Pipe);
  }
  int port() const { return Port; }
  std::string baseUrl() const {
    return "http://127.0.0.1:" + std::to_string(Port) + "/v1";
  }

private:
  FILE *Pipe = nullptr;
  int Port = 0, Pid = 0;
};

/// Every line of a JSON-lines file.
inline std::vector<nlohmann::json> readJsonLines(const std::string &path) {
  std::vector<nlohmann::json> out;
  auto text = readFile(path);
  if (!text)
    return out;
  size_t start = 0;
  while (start < text->size()) {
    size_t end = text->find('\n', start);
    if (end == std::string::npos)
      end = text->size();
    if (end > start)
      out.push_back(nlohmann::json::parse(text->substr(start, end - start)));
    start = end + 1;
  }
  return out;
}

/// Every regular file under `dir`, with its text.
inline std::vector<std::pair<std::string, std::string>>
filesUnder(const fs::path &dir) {
  std::vector<std::pair<std::string, std::string>> out;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec))
    if (it->is_regular_file())
      out.emplace_back(it->path().string(), readText(it->path()));
  return out;
}

/// Names a parameterised scenario's test: the scenario's name, '-' read as
/// '_'.
inline constexpr auto scenarioTestName = [](const auto &info) {
  std::string n = info.param.name;
  for (char &c : n)
    if (c == '-')
      c = '_';
  return n;
};

} // namespace ktune::planner::test

#endif
