//===- ktune/Planner/PlanWithValidation.h - Checked plans -------*- C++ -*-===//
//
// The one entry point drivers call (ktune-refactor --planner, ktune run's
// re-plan step, ktune-plan): ask the planner, validate its plan exactly like
// a --plan file, send the reasons back once, and fall back to the heuristic
// plan when that fails too. Every exchange is saved for audit. Protocol:
// docs/llm-planners.md#protocol.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_PLANNER_PLANWITHVALIDATION_H
#define KTUNE_PLANNER_PLANWITHVALIDATION_H

#include "ktune/Planner/Planner.h"
#include "ktune/Support/EnumNames.h"

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::planner {

enum class PlanningOutcome {
  Applied,   // the planner's first plan was valid
  Corrected, // its first plan was refused, the corrected one was valid
  Fallback,  // no valid plan from the planner: the heuristic plan is used
};
inline constexpr EnumName<PlanningOutcome> PlanningOutcomeNames[] = {
    {PlanningOutcome::Applied, "applied"},
    {PlanningOutcome::Corrected, "corrected"},
    {PlanningOutcome::Fallback, "fallback"},
};
/// "applied", "corrected", "fallback".
std::string_view outcomeName(PlanningOutcome outcome);

/// One request and answer, as saved in the audit directory.
struct PlanningExchange {
  int number = 0;             // NN in the audit file names
  int round = 1;              // 1 = proposal, 2 = correction
  std::string verdict;        // "accepted", "rejected", "planner_error"
  std::vector<Error> reasons; // why rejected, or the planner's error
  std::string auditPrefix;    // "<dir>/NN-" when saved, else empty
};

struct PlanningResult {
  Plan plan; // valid for the request's candidates and sources
  PlanningOutcome outcome = PlanningOutcome::Applied;
  std::string planner; // Planner::describe()
  std::vector<PlanningExchange> exchanges;
  /// Why the planner's plans were not used (Fallback only): the reasons of
  /// the last refusal or the planner's error.
  std::vector<Error> fallbackReasons;
  /// What happened, one line each, as it was reported to `log`.
  std::vector<std::string> messages;
};

struct PlanningOptions {
  /// Where exchanges are saved (NN-prompt.md, NN-reply.txt,
  /// NN-verdict.json, NN-response.json for HTTP); created when needed;
  /// numbering continues after files already there. Empty = not saved.
  std::string auditDir;
  /// A plan from the planner or an error: a planner that cannot answer
  /// (endpoint down, timeout, non-zero exit) or whose plan is refused after
  /// the correction round is an error instead of a fallback to the
  /// heuristic plan.
  bool strict = false;
  /// Called with each message as it happens (drivers print it with their
  /// name, e.g. "ktune-refactor: planner: <line>").
  std::function<void(const std::string &line)> log;
};

/// Asks `planner` for a plan for `request` (its candidates and sources) and
/// returns a plan that passes validatePlan:
///   1. propose; extract the JSON (extractPlanJson), planFromJson,
///      validatePlan; plans from text planners are then made safe
///      (sanitizeUntrustedPlan);
///   2. if refused: send the reasons (formatPlanErrors) back once, with the
///      refused reply, and judge the corrected plan the same way;
///   3. if refused again, or the planner cannot answer: heuristicPlan, and
///      the messages say so with the reasons.
/// Errors: the audit directory cannot be written, in strict mode a planner
/// error or a plan refused twice (one line naming the first reason), or (never
/// expected) a heuristic plan that fails validation.
Expected<PlanningResult> planWithValidation(Planner &planner,
                                            const PlannerRequest &request,
                                            const PlanningOptions &options);

/// What happened, for ktune-plan --verdict: the outcome, the planner, the
/// reasons for a fallback and every exchange (its audit file prefix).
nlohmann::json planningResultToJson(const PlanningResult &result);

/// Makes a validated plan from an untrusted source safe to hand to the
/// rewriter and to show: drops every `note` (free text that must never
/// reach emitted source), rewrites constraints in canonical form (only
/// names, numbers and operators; they already parsed) and sets `planner`.
Plan sanitizeUntrustedPlan(Plan plan, const std::string &planner);

/// Structural check of a tuning summary (docs/llm-planners.md#tuning-summary);
/// every error names its JSON path.
std::vector<Error> checkTuningSummary(const nlohmann::json &summary);

} // namespace ktune::planner

#endif
