//===- ktune/Planner/ChoosePlan.h - Where the first plan comes from -*- C++
//-*-===//
//
// The one place ktune-refactor and `ktune run` choose the plan they apply:
// a --plan file (read and validated like any untrusted plan), a text planner
// (planWithValidation: validated, corrected once, else the heuristic plan),
// or the heuristic plan. Given the kernels to tune, the plan is limited to
// them, and a kernel without a high-confidence candidate gets its medium-,
// then low-confidence ones rather than nothing to tune.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_PLANNER_CHOOSEPLAN_H
#define KTUNE_PLANNER_CHOOSEPLAN_H

#include "ktune/Planner/PlanWithValidation.h"

#include <expected>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ktune::planner {

/// A driver's planner flags, over plannerOptionsFromEnvironment().
struct PlannerFlags {
  std::string spec = "heuristic";       // --planner
  std::string model;                    // --model; empty = $KTUNE_MODEL
  std::optional<double> timeoutSeconds; // --planner-timeout
  std::optional<int> attempts;          // --planner-attempts
  bool jsonMode = false;                // --json-mode (never switches it off)
  std::string promptTemplate;           // --prompt-template
  std::string planSchema;               // --plan-schema
};

/// --planner-timeout's and --planner-attempts' text (nullopt: not given)
/// into `flags`: a positive number of seconds; an integer from 1 to 20.
Status readPlannerLimits(const std::optional<std::string> &timeout,
                         const std::optional<std::string> &attempts,
                         PlannerFlags &flags);

struct ConfiguredPlanner {
  PlannerOptions options; // what the planner was made with
  std::unique_ptr<Planner> planner;
};

/// The planner the flags name, set up with the environment's options and
/// the flags over them. Errors: a malformed KTUNE_* variable (naming it),
/// a planner spec that is not one (naming --planner).
Expected<ConfiguredPlanner> configurePlanner(const PlannerFlags &flags);

struct PlanChoice {
  /// A plan file (--plan); empty = the planner's or the heuristic plan.
  std::string planPath;
  /// A text planner (command:, openai:); null or the heuristic planner =
  /// the heuristic plan.
  Planner *planner = nullptr;
  /// How the text planner is asked (audit directory, strictness, log).
  PlanningOptions planning;
  /// The kernels to tune: the plan is limited to them and widened for
  /// them. Empty = every kernel, as the plan has it.
  std::vector<std::string> kernels;
  /// Notes on the choice ("plan: no high-confidence candidate in k: ...").
  std::function<void(const std::string &line)> log;
};

struct ChosenPlan {
  Plan plan; // valid for the request's candidates and sources
  /// For the record: "file <path>", "heuristic", "heuristic
  /// (medium-confidence candidates for k)" or "<planner> (<outcome>)".
  std::string origin;
  /// The text planner's account of the exchanges, when one was asked.
  std::optional<PlanningResult> planning;
};

/// The plan for `request` (its candidates and sources) as `choice` says.
/// Errors: every reason a plan file cannot be used, each naming the file;
/// otherwise one error (the planner's in strict mode, an unwritable audit
/// directory).
std::expected<ChosenPlan, std::vector<Error>>
choosePlan(const PlannerRequest &request, const PlanChoice &choice);

/// The text of the main file and of every file the candidates point into
/// (ktune-plan's request): names relative to `root` when given, else to the
/// candidates file's directory, then to the working directory.
Expected<SourceTexts>
readCandidateSources(const CandidateSet &set, const std::string &candidatesPath,
                     const std::optional<std::string> &root);

/// The plan limited to `kernels` (in the plan's order).
Plan restrictPlan(Plan plan, const std::vector<std::string> &kernels);

/// True when the plan kernel is `name` (equal, or equal once qualifiers
/// such as "ops::" are dropped from either).
bool sameKernel(const std::string &planKernel, const std::string &name);

} // namespace ktune::planner

#endif
