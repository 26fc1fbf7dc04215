//===- ktune-plan.cpp - A plan for a candidates file, from any planner ----===//
//
// Reads the candidates `ktune-refactor --candidates` printed and the source
// they point into, asks a planner (heuristic, a command, an LLM endpoint)
// through planWithValidation, and prints the validated plan. The work is in
// lib/Planner; this file parses options.
//
//===----------------------------------------------------------------------===//
#include "ktune/Plan/Plan.h"
#include "ktune/Planner/ChoosePlan.h"
#include "ktune/Planner/PlanWithValidation.h"
#include "ktune/Planner/Prompt.h"
#include "ktune/Planner/RequestFiles.h"
#include "ktune/Support/FileUtil.h"

#include <CLI/CLI.hpp>

#include <iostream>
#include <optional>
#include <string>

using namespace ktune;
using namespace ktune::planner;

namespace {

int fail(const std::string &message) {
  std::cerr << "ktune-plan: error: " << message << "\n";
  return 1;
}

/// The options' values; a value is given when its CLI::Option counts one.
struct Options {
  std::string candidates, planner = "heuristic", model, timeout, attempts,
                          sourceRoot, device, previousPlan, tuningSummary,
                          templatePath, schemaPath, output, auditDir, verdict,
                          check;
  bool jsonMode = false, strict = false, printPrompt = false, noAudit = false;
};

/// Where an optional value was given.
std::optional<std::string> given(const CLI::Option *option,
                                 const std::string &value) {
  return option->count() ? std::optional(value) : std::nullopt;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{
      "Asks a planner for a rewrite plan for the candidates that\n"
      "`ktune-refactor kernel.cu --candidates` printed, validates it exactly "
      "like a\n--plan file, and prints it (JSON). A refused plan is sent back "
      "to the planner\nonce; if the correction is refused too, the heuristic "
      "plan is printed and\nstderr says why.",
      "ktune-plan"};
  app.footer("The API key for openai: is read from $KTUNE_API_KEY or "
             "$OPENAI_API_KEY only.\nGuide: docs/llm-planners.md");
  app.set_help_flag("-h,--help", "this text");
  // Unknown options and a second file are reported below, in our words.
  app.allow_extras();
  Options o;
  app.add_option("candidates", o.candidates, "candidates.json");
  app.add_option("--planner", o.planner,
                 "heuristic (default) | command:<cmdline> | openai:<base_url> "
                 "(e.g. openai:http://host:8000/v1)");
  app.add_option("--model", o.model,
                 "model for openai: (default: $KTUNE_MODEL, or "
                 "the endpoint's only model)");
  auto *timeout = app.add_option("--planner-timeout", o.timeout,
                                 "seconds per exchange (default: "
                                 "$KTUNE_PLANNER_TIMEOUT or 300)");
  auto *attempts = app.add_option("--planner-attempts", o.attempts,
                                  "openai: tries on connection errors, HTTP "
                                  "429 and 5xx (default 3)");
  app.add_flag("--json-mode", o.jsonMode,
               "openai: ask for response_format json_object");
  app.add_flag("--strict", o.strict,
               "the planner's plan or an error: a planner that cannot answer "
               "or whose plan is refused twice is an error, not a fallback "
               "to the heuristic plan; no progress lines");
  auto *sourceRoot = app.add_option(
      "--source-root", o.sourceRoot,
      "directory the candidates' file names are relative to (default: the "
      "candidates file's directory, then the current directory)");
  auto *device = app.add_option("--device", o.device,
                                "device limits (JSON, keys as in "
                                "docs/llm-planners.md; default: sm_90 limits)");
  auto *previous = app.add_option("--previous-plan", o.previousPlan,
                                  "re-plan round: the plan tuned last round");
  auto *summary =
      app.add_option("--tuning-summary", o.tuningSummary,
                     "re-plan round: what tuning found (tuning-summary/1)");
  app.add_option("--prompt-template", o.templatePath,
                 "the prompt template (default: $KTUNE_PROMPT_TEMPLATE or the "
                 "installed templates/planner_prompt.md)");
  app.add_option("--plan-schema", o.schemaPath,
                 "the plan schema shown in the prompt");
  app.add_flag("--print-prompt", o.printPrompt,
               "print the prompt that would be sent, and exit");
  auto *check = app.add_option("--check", o.check,
                               "validate a plan file against the candidates "
                               "and the source (every reason, one per line), "
                               "and exit");
  auto *output =
      app.add_option("-o", o.output, "write the plan here (default: stdout)");
  auto *auditDir = app.add_option("--audit-dir", o.auditDir,
                                  "save every exchange here (default: "
                                  "<FILE>.planner with -o, else "
                                  "ktune-plan.planner)");
  app.add_flag("--no-audit", o.noAudit, "do not save exchanges");
  auto *verdict = app.add_option("--verdict", o.verdict,
                                 "write what happened (outcome, reasons, "
                                 "exchanges) as JSON");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    return fail(e.what());
  }
  for (const auto &extra : app.remaining())
    if (extra.starts_with("-") && extra != "-")
      return fail("unknown option " + extra + " (see --help)");
  if (o.candidates.empty())
    return fail("give the candidates file (see --help)");
  if (!app.remaining().empty())
    return fail("give one candidates file (got " + o.candidates + " and " +
                app.remaining().front() + ")");

  PlannerFlags flags{.spec = o.planner,
                     .model = o.model,
                     .jsonMode = o.jsonMode,
                     .promptTemplate = o.templatePath,
                     .planSchema = o.schemaPath};
  if (auto s = readPlannerLimits(given(timeout, o.timeout),
                                 given(attempts, o.attempts), flags);
      !s)
    return fail(s.error().str());
  auto planner = configurePlanner(flags);
  if (!planner)
    return fail(planner.error().str());

  auto request = readPlannerRequest(
      {o.candidates, given(sourceRoot, o.sourceRoot), given(device, o.device),
       given(previous, o.previousPlan), given(summary, o.tuningSummary)});
  if (!request)
    return fail(request.error().str());

  if (check->count()) {
    auto valid = checkPlanFile(o.check, *request);
    if (!valid) {
      for (const Error &e : valid.error())
        fail(e.str());
      return 1;
    }
    std::cerr << "ktune-plan: " << *valid << "\n";
    return 0;
  }

  if (o.printPrompt) {
    auto prompt = renderPrompt(*request, planner->options.prompt);
    if (!prompt)
      return fail(prompt.error().str());
    std::cout << *prompt;
    return 0;
  }

  PlanningOptions planning;
  if (!o.noAudit && planner->planner->isTextPlanner())
    planning.auditDir = auditDir->count() ? o.auditDir
                        : output->count() ? o.output + ".planner"
                                          : std::string("ktune-plan.planner");
  planning.strict = o.strict;
  // Scripts use --strict: the plan or one error line, nothing else (the
  // audit directory still records every exchange).
  if (!o.strict)
    planning.log = [](const std::string &line) {
      std::cerr << "ktune-plan: planner: " << line << "\n";
    };
  auto result = planWithValidation(*planner->planner, *request, planning);
  if (!result)
    return fail(result.error().str());

  auto dump = [](const nlohmann::json &j) {
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
           "\n";
  };
  std::string planText = dump(planToJson(result->plan));
  if (!output->count())
    std::cout << planText;
  else if (auto s = writeFileAtomically(o.output, planText); !s)
    return fail(s.error().str());
  if (verdict->count())
    if (auto s =
            writeFileAtomically(o.verdict, dump(planningResultToJson(*result)));
        !s)
      return fail(s.error().str());
  return 0;
}
