//===- ktune-plan.cpp - A plan for a candidates file, from any planner ----===//
//
// Reads the candidates `ktune-refactor --candidates` printed and the source
// they point into, asks a planner (heuristic, a command, an LLM endpoint)
// through planWithValidation, and prints the validated plan. The work is in
// lib/Planner; this file parses options.
//
//===----------------------------------------------------------------------===//
#include "ktune/Plan/Candidates.h"
#include "ktune/Plan/Plan.h"
#include "ktune/Planner/PlanWithValidation.h"
#include "ktune/Planner/Planner.h"
#include "ktune/Planner/Prompt.h"
#include "ktune/Support/FileUtil.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

using namespace ktune;
using namespace ktune::planner;
namespace fs = std::filesystem;

static const char *Usage = R"(usage: ktune-plan <candidates.json> [options]

Asks a planner for a rewrite plan for the candidates that
`ktune-refactor kernel.cu --candidates` printed, validates it exactly like a
--plan file, and prints it (JSON). A refused plan is sent back to the planner
once; if the correction is refused too, the heuristic plan is printed and
stderr says why.

options:
  --planner SPEC         heuristic (default) | command:<cmdline> |
                         openai:<base_url> (e.g. openai:http://host:8000/v1)
  --model NAME           model for openai: (default: $KTUNE_MODEL, or the
                         endpoint's only model)
  --planner-timeout S    seconds per exchange (default: $KTUNE_PLANNER_TIMEOUT
                         or 300)
  --planner-attempts N   openai: tries on connection errors, HTTP 429 and 5xx
                         (default 3)
  --json-mode            openai: ask for response_format json_object
  --strict               a planner that cannot answer is an error, not a
                         fallback to the heuristic plan
  --source-root DIR      directory the candidates' file names are relative
                         to (default: the candidates file's directory, then
                         the current directory)
  --device FILE          device limits (JSON, keys as in docs/llm-planners.md;
                         default: sm_90 limits)
  --previous-plan FILE   re-plan round: the plan tuned last round
  --tuning-summary FILE  re-plan round: what tuning found (tuning-summary/1)
  --prompt-template FILE the prompt template (default: $KTUNE_PROMPT_TEMPLATE
                         or the installed templates/planner_prompt.md)
  --plan-schema FILE     the plan schema shown in the prompt
  --print-prompt         print the prompt that would be sent, and exit
  --check PLAN           validate a plan file against the candidates and the
                         source (every reason, one per line), and exit
  -o FILE                write the plan here (default: stdout)
  --audit-dir DIR        save every exchange here (default: <FILE>.planner
                         with -o, else ktune-plan.planner)
  --no-audit             do not save exchanges
  --verdict FILE         write what happened (outcome, reasons, exchanges) as
                         JSON
  -h, --help             this text

The API key for openai: is read from $KTUNE_API_KEY or $OPENAI_API_KEY only.
Guide: docs/llm-planners.md
)";

namespace {

int fail(const std::string &message) {
  std::cerr << "ktune-plan: error: " << message << "\n";
  return 1;
}

struct Options {
  std::string candidates;
  std::string planner = "heuristic";
  std::optional<std::string> model, timeout, attempts, sourceRoot, device,
      previousPlan, tuningSummary, templatePath, schemaPath, output, auditDir,
      verdict, check;
  bool jsonMode = false, strict = false, printPrompt = false, noAudit = false;
};

/// Parses argv; an error message, or nothing.
std::optional<std::string> parseArgs(int argc, char **argv, Options &o,
                                     bool &help) {
  std::map<std::string, std::optional<std::string> *> valued = {
      {"--planner", nullptr},
      {"--model", &o.model},
      {"--planner-timeout", &o.timeout},
      {"--planner-attempts", &o.attempts},
      {"--source-root", &o.sourceRoot},
      {"--device", &o.device},
      {"--previous-plan", &o.previousPlan},
      {"--tuning-summary", &o.tuningSummary},
      {"--prompt-template", &o.templatePath},
      {"--plan-schema", &o.schemaPath},
      {"-o", &o.output},
      {"--audit-dir", &o.auditDir},
      {"--verdict", &o.verdict},
      {"--check", &o.check}};
  std::map<std::string, bool *> flags = {{"--json-mode", &o.jsonMode},
                                         {"--strict", &o.strict},
                                         {"--print-prompt", &o.printPrompt},
                                         {"--no-audit", &o.noAudit}};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      help = true;
      return std::nullopt;
    }
    std::string name = a, value;
    bool inlineValue = false;
    if (a.starts_with("--") && a.find('=') != std::string::npos) {
      name = a.substr(0, a.find('='));
      value = a.substr(a.find('=') + 1);
      inlineValue = true;
    }
    if (auto f = flags.find(name); f != flags.end()) {
      if (inlineValue)
        return name + " takes no value";
      *f->second = true;
      continue;
    }
    if (auto v = valued.find(name); v != valued.end()) {
      if (!inlineValue) {
        if (i + 1 >= argc)
          return name + " needs a value";
        value = argv[++i];
      }
      if (name == "--planner")
        o.planner = value;
      else
        *v->second = value;
      continue;
    }
    if (a.starts_with("-") && a != "-")
      return "unknown option " + a + " (see --help)";
    if (!o.candidates.empty())
      return "give one candidates file (got " + o.candidates + " and " + a +
             ")";
    o.candidates = a;
  }
  if (o.candidates.empty())
    return "give the candidates file (see --help)";
  return std::nullopt;
}

Expected<double> parseNumber(const std::string &text, const std::string &flag) {
  char *end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(v > 0))
    return makeError("expected a positive number, got '" + text + "'", flag);
  return v;
}

/// The text of every file the candidates point into, and the main file.
Expected<SourceTexts> readSources(const CandidateSet &set,
                                  const std::string &candidatesPath,
                                  const std::optional<std::string> &root) {
  std::set<std::string> files;
  if (!set.file.empty())
    files.insert(set.file);
  for (const auto &c : set.candidates)
    for (const auto &s : c.sites)
      files.insert(s.file);
  std::vector<fs::path> bases;
  if (root)
    bases.push_back(*root);
  else {
    bases.push_back(fs::path(candidatesPath).parent_path());
    bases.push_back(fs::current_path());
  }
  SourceTexts texts;
  for (const auto &file : files) {
    std::vector<fs::path> tried;
    if (fs::path(file).is_absolute())
      tried.push_back(file);
    else
      for (const auto &b : bases)
        tried.push_back(b / file);
    bool found = false;
    for (const auto &p : tried) {
      std::error_code ec;
      if (!fs::is_regular_file(p, ec))
        continue;
      auto text = readFile(p.string());
      if (!text)
        return std::unexpected(text.error());
      texts[file] = std::move(*text);
      found = true;
      break;
    }
    if (!found) {
      std::string list;
      for (const auto &p : tried)
        list += (list.empty() ? "" : ", ") + p.lexically_normal().string();
      return makeError("cannot find the source file the candidates name "
                       "(looked in " +
                           list + "; see --source-root)",
                       file);
    }
  }
  return texts;
}

nlohmann::json verdictJson(const PlanningResult &r) {
  nlohmann::json exchanges = nlohmann::json::array();
  for (const auto &e : r.exchanges) {
    nlohmann::json reasons = nlohmann::json::array();
    for (const auto &x : e.reasons)
      reasons.push_back(x.str());
    exchanges.push_back({{"exchange", e.number},
                         {"round", e.round},
                         {"verdict", e.verdict},
                         {"reasons", reasons},
                         {"audit", e.auditPrefix}});
  }
  nlohmann::json reasons = nlohmann::json::array();
  for (const auto &x : r.fallbackReasons)
    reasons.push_back(x.str());
  return {{"outcome", outcomeName(r.outcome)},
          {"planner", r.planner},
          {"fallback_reasons", reasons},
          {"exchanges", exchanges}};
}

} // namespace

int main(int argc, char **argv) {
  Options o;
  bool help = false;
  if (auto err = parseArgs(argc, argv, o, help))
    return fail(*err);
  if (help) {
    std::cout << Usage;
    return 0;
  }

  auto options = plannerOptionsFromEnvironment();
  if (!options)
    return fail(options.error().str());
  if (o.model)
    options->model = *o.model;
  if (o.timeout) {
    auto t = parseNumber(*o.timeout, "--planner-timeout");
    if (!t)
      return fail(t.error().str());
    options->timeoutSeconds = *t;
  }
  if (o.attempts) {
    auto n = parseNumber(*o.attempts, "--planner-attempts");
    if (!n || *n != static_cast<int>(*n) || *n > 20)
      return fail("--planner-attempts: expected an integer from 1 to 20");
    options->attempts = static_cast<int>(*n);
  }
  if (o.jsonMode)
    options->jsonMode = true;
  if (o.templatePath)
    options->prompt.templatePath = *o.templatePath;
  if (o.schemaPath)
    options->prompt.schemaPath = *o.schemaPath;

  auto planner = parsePlannerSpec(o.planner, *options);
  if (!planner)
    return fail("--planner: " + planner.error().str());

  auto candidatesJson = readJsonFile(o.candidates);
  if (!candidatesJson)
    return fail(candidatesJson.error().str());
  auto candidates = candidatesFromJson(*candidatesJson);
  if (!candidates)
    return fail(withContext(candidates.error(), o.candidates).str());

  PlannerRequest request;
  request.file = candidates->file;
  request.candidates = std::move(*candidates);
  auto sources = readSources(request.candidates, o.candidates, o.sourceRoot);
  if (!sources)
    return fail(sources.error().str());
  request.sources = std::move(*sources);
  if (o.device) {
    auto json = readJsonFile(*o.device);
    if (!json)
      return fail(json.error().str());
    auto device = DeviceFacts::fromJson(*json);
    if (!device)
      return fail(withContext(device.error(), *o.device).str());
    request.device = std::move(*device);
  }
  if (o.previousPlan) {
    auto json = readJsonFile(*o.previousPlan);
    if (!json)
      return fail(json.error().str());
    auto plan = planFromJson(*json);
    if (!plan)
      return fail(withContext(plan.error(), *o.previousPlan).str());
    request.previousPlan = std::move(*plan);
  }
  if (o.tuningSummary) {
    auto json = readJsonFile(*o.tuningSummary);
    if (!json)
      return fail(json.error().str());
    if (auto errors = checkTuningSummary(*json); !errors.empty())
      return fail(*o.tuningSummary + ": " + errors.front().str());
    request.tuningSummary = std::move(*json);
  }
  if (request.tuningSummary.is_null() != !request.previousPlan)
    return fail("--previous-plan and --tuning-summary go together");

  if (o.check) {
    auto json = readJsonFile(*o.check);
    if (!json)
      return fail(json.error().str());
    auto plan = planFromJson(*json);
    if (!plan)
      return fail(withContext(plan.error(), *o.check).str());
    auto errors = validatePlan(*plan, request.candidates, request.sources);
    for (const auto &e : errors)
      std::cerr << "ktune-plan: error: " << withContext(e, *o.check).str()
                << "\n";
    if (!errors.empty())
      return 1;
    size_t params = 0;
    for (const auto &k : plan->kernels)
      params += k.params.size();
    std::cerr << "ktune-plan: " << *o.check << " is valid: " << params
              << " parameter" << (params == 1 ? "" : "s") << " in "
              << plan->kernels.size() << " kernel"
              << (plan->kernels.size() == 1 ? "" : "s") << "\n";
    return 0;
  }

  if (o.printPrompt) {
    auto prompt = renderPrompt(request, options->prompt);
    if (!prompt)
      return fail(prompt.error().str());
    std::cout << *prompt;
    return 0;
  }

  PlanningOptions planning;
  if (!o.noAudit && (*planner)->isTextPlanner())
    planning.auditDir = o.auditDir ? *o.auditDir
                        : o.output ? *o.output + ".planner"
                                   : std::string("ktune-plan.planner");
  planning.strict = o.strict;
  planning.log = [](const std::string &line) {
    std::cerr << "ktune-plan: planner: " << line << "\n";
  };
  auto result = planWithValidation(**planner, request, planning);
  if (!result)
    return fail(result.error().str());

  std::string text =
      planToJson(result->plan)
          .dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
      "\n";
  if (o.output) {
    if (auto s = writeFileAtomically(*o.output, text); !s)
      return fail(s.error().str());
  } else {
    std::cout << text;
  }
  if (o.verdict)
    if (auto s = writeFileAtomically(
            *o.verdict,
            verdictJson(*result).dump(
                2, ' ', false, nlohmann::json::error_handler_t::replace) +
                "\n");
        !s)
      return fail(s.error().str());
  return 0;
}
