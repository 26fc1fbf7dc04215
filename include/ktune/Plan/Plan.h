//===- ktune/Plan/Plan.h - Which constants to lift, and how ----*- C++ -*-===//
//
// A rewrite plan names, per kernel, the parameters to lift (name, kind,
// candidates, default, domain) and the constraints between them. Plans are
// untrusted input: a person, a script or an LLM may have written them, so
// validatePlan checks every field against the candidates and the source
// before anything is rewritten. Schema: docs/schemas.md#plan.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_PLAN_PLAN_H
#define KTUNE_PLAN_PLAN_H

#include "ktune/Plan/Candidates.h"
#include "ktune/Plan/Domain.h"
#include "ktune/Support/Error.h"

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace ktune {

inline constexpr const char *PlanVersion = "plan/1";

struct PlanParam {
  std::string name; // C++ identifier, becomes the template parameter
  ParamKind kind = ParamKind::Other;
  std::vector<std::string> candidates; // candidate ids lifted together
  /// Optional subset of the candidates' sites ("file:line:col"); empty = all.
  std::vector<std::string> sites;
  int64_t defaultValue = 0; // must equal the candidates' original value
  Domain domain;
  /// Free text for people and planners ("16 / sizeof(T) at the definition");
  /// never interpreted.
  std::string note;
};

struct PlanKernel {
  std::string kernel;
  std::vector<PlanParam> params;
  std::vector<std::string> constraints; // ktune expression language
};

struct Plan {
  std::string planner; // "heuristic", "file:plan.json", "command:...", ...
  std::vector<PlanKernel> kernels;
};

/// Structural parsing only (types, required fields); errors name the JSON
/// path. Use validatePlan for the semantic checks.
Expected<Plan> planFromJson(const nlohmann::json &json);
nlohmann::json planToJson(const Plan &plan);

/// Source text of each file a site may point into, keyed like SourceSite::file.
using SourceTexts = std::map<std::string, std::string>;

/// Every reason the plan cannot be applied (empty = valid): invalid or
/// colliding identifiers, unknown candidates or sites, site text that no
/// longer matches the source, defaults that differ from the original values,
/// overlapping edits, unbounded or empty domains, constraints that do not
/// parse or name unknown parameters. Each error names its JSON path and,
/// where there is one, the source location.
std::vector<Error> validatePlan(const Plan &plan, const CandidateSet &candidates,
                                const SourceTexts &sources);

/// The errors as a bullet list, one "- where: message" line each, for a
/// person or to send back to the planner that wrote the plan.
std::string formatPlanErrors(const std::vector<Error> &errors);

struct HeuristicOptions {
  /// Lowest confidence lifted by default.
  Confidence minConfidence = Confidence::High;
  /// Source text of the files the candidates point into. When given, names
  /// avoid every identifier used there and candidates whose sites no longer
  /// match the text are left out, so the plan passes validatePlan.
  const SourceTexts *sources = nullptr;
};

/// The built-in planner: lifts every confident candidate with a sensible
/// domain and the constraints the code implies.
Plan heuristicPlan(const CandidateSet &candidates,
                   const HeuristicOptions &options = {});

/// The built-in plan every tool uses (ktune-refactor, the clang-tidy checks,
/// the heuristic planner and the text planners' fallback): heuristicPlan at
/// `minConfidence`, its names clear of every identifier in `sources`.
Plan defaultPlan(const CandidateSet &candidates, const SourceTexts &sources,
                 Confidence minConfidence = Confidence::High);

} // namespace ktune

#endif
