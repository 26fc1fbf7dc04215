//===- CommandPlanner.cpp - A user's command as the planner ---------------===//
//
// `command:<cmdline>`: the user's own command line (an agent, a script, a
// wrapper around a model they run), run through /bin/sh like a Makefile
// recipe. The prompt goes to its stdin, the reply comes from its stdout.
//
//===----------------------------------------------------------------------===//
#include "ktune/Planner/Planner.h"
#include "ktune/Planner/Prompt.h"
#include "ktune/Support/Process.h"

#include "PlannerInternal.h"

#include <cstdio>

namespace ktune::planner {

namespace {

std::string secondsText(double s) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", s);
  return buffer;
}

class CommandPlanner final : public Planner {
public:
  CommandPlanner(std::string commandLine, PlannerOptions options)
      : CommandLine(std::move(commandLine)), Options(std::move(options)) {}

  std::string describe() const override { return "command:" + CommandLine; }

  Expected<std::string> prompt(const PlannerRequest &request) const override {
    return renderPrompt(request, Options.prompt);
  }

  PlannerReply propose(const PlannerRequest &request, const std::string &prompt,
                       int round) override {
    PlannerReply reply;
    ProcessOptions run;
    run.timeoutSeconds = Options.timeoutSeconds;
    run.maxOutputBytes = MaxReplyBytes + 1;
    run.environment["KTUNE_PLANNER_ROUND"] = std::to_string(round);
    reply.transport = {{"planner", "command"}, {"command", CommandLine}};
    auto result = runShellCommand(CommandLine, prompt, run);
    if (!result) {
      reply.failure = plannerError("planner command cannot be started: " +
                                   result.error().message);
      return reply;
    }
    reply.transport["seconds"] = result->seconds;
    reply.transport["stderr_tail"] = tail(result->err, 2000);
    if (result->timedOut) {
      reply.transport["timed_out"] = true;
      reply.failure = plannerError("planner command did not answer within " +
                                   secondsText(Options.timeoutSeconds) +
                                   " s and was killed: " + CommandLine);
    } else if (result->signal) {
      reply.transport["signal"] = result->signal;
      reply.failure = plannerError("planner command was killed by signal " +
                                   std::to_string(result->signal) + ": " +
                                   CommandLine + stderrNote(result->err));
    } else if (reply.transport["exit_code"] = result->exitCode;
               result->exitCode != 0) {
      reply.failure = plannerError("planner command exited with status " +
                                   std::to_string(result->exitCode) + ": " +
                                   CommandLine + stderrNote(result->err));
    } else if (result->outputTruncated) {
      reply.failure = plannerError("planner command wrote more than " +
                                   std::to_string(MaxReplyBytes) +
                                   " bytes: " + CommandLine);
    }
    reply.text = std::move(result->out);
    return reply;
  }

private:
  static std::string stderrNote(const std::string &err) {
    std::string t = tail(err, 600);
    while (!t.empty() && (t.back() == '\n' || t.back() == ' '))
      t.pop_back();
    return t.empty() ? std::string() : "; its stderr ends: " + t;
  }

  std::string CommandLine;
  PlannerOptions Options;
};

} // namespace

std::unique_ptr<Planner> makeCommandPlanner(std::string commandLine,
                                            PlannerOptions options) {
  return std::make_unique<CommandPlanner>(std::move(commandLine),
                                          std::move(options));
}

} // namespace ktune::planner
