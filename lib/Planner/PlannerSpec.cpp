//===- PlannerSpec.cpp - "heuristic" | "command:..." | "openai:..." -------===//
#include "ktune/Planner/Planner.h"
#include "ktune/Support/Try.h"

#include <cstdlib>
#include <string_view>

namespace ktune::planner {

namespace {

const char *envValue(const char *name) {
  const char *v = std::getenv(name);
  return v && *v ? v : nullptr;
}

Expected<double> positiveSeconds(std::string_view text, const char *origin) {
  std::string s(text);
  char *end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || !(v > 0) || v > 86400)
    return makeError(
        "expected a number of seconds in (0, 86400], got '" + s + "'", origin);
  return v;
}

} // namespace

Expected<PlannerOptions> plannerOptionsFromEnvironment() {
  PlannerOptions o;
  if (const char *v = envValue("KTUNE_MODEL"))
    o.model = v;
  if (const char *v = envValue("KTUNE_PLANNER_TIMEOUT")) {
    KTUNE_TRY_ASSIGN(auto s, positiveSeconds(v, "KTUNE_PLANNER_TIMEOUT"));
    o.timeoutSeconds = s;
  }
  if (const char *v = envValue("KTUNE_PLANNER_JSON_MODE")) {
    std::string_view s = v;
    if (s == "1" || s == "true" || s == "yes")
      o.jsonMode = true;
    else if (s == "0" || s == "false" || s == "no")
      o.jsonMode = false;
    else
      return makeError("expected 1 or 0, got '" + std::string(s) + "'",
                       "KTUNE_PLANNER_JSON_MODE");
  }
  // KTUNE_PROMPT_TEMPLATE and KTUNE_PLAN_SCHEMA are read when the files are
  // looked for (findPromptTemplate), so an explicit option still wins.
  return o;
}

Expected<std::unique_ptr<Planner>> parsePlannerSpec(const std::string &spec,
                                                    PlannerOptions options) {
  if (spec == "heuristic")
    return makeHeuristicPlanner();
  if (spec.starts_with("command:")) {
    std::string cmd = spec.substr(8);
    if (cmd.find_first_not_of(" \t") == std::string::npos)
      return makeError("command: planner needs a command line, e.g. "
                       "'command:./my-agent --json'");
    return makeCommandPlanner(std::move(cmd), std::move(options));
  }
  if (spec.starts_with("openai:"))
    return makeOpenAIPlanner(spec.substr(7), std::move(options));
  return makeError("unknown planner '" + spec +
                   "': use heuristic, command:<cmdline> or openai:<base_url> "
                   "(e.g. openai:http://127.0.0.1:8000/v1)");
}

} // namespace ktune::planner
