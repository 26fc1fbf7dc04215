//===- ktune/Run/Replan.h - The next round's plan ---------------*- C++ -*-===//
//
// Between rounds of `ktune run`, a Replanner turns the plan just tuned and
// what the analysis found into the next round's plan, with a reason for
// every decision. Two implementations share the seam:
//
//  - the rules (deterministic): widen a domain whose best value sits on its
//    edge, within the hardware's limits for the parameter's kind; drop (fix
//    to its default) a parameter that made no difference beyond the timing
//    noise; lift candidates the plan left fixed when the kernel is far from
//    its roofline; propose what the parameters cannot do (a structural
//    kind for a grid that leaves most SMs idle, a register cap where
//    registers limit occupancy), with "not available in this build" until
//    the refactorer introduces it;
//  - a planner (command: or openai:), asked through planWithValidation with
//    the previous plan and a "tuning-summary/1"; when it gives no valid
//    plan, the rules decide.
//
// Rules and stop criteria: docs/run.md#re-planning.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_RUN_REPLAN_H
#define KTUNE_RUN_REPLAN_H

#include "ktune/Plan/Candidates.h"
#include "ktune/Plan/Plan.h"
#include "ktune/Planner/ChoosePlan.h"
#include "ktune/Planner/PlanWithValidation.h"
#include "ktune/Planner/Planner.h"
#include "ktune/Run/Analysis.h"
#include "ktune/Support/EnumNames.h"
#include "ktune/Target/DeviceLimits.h"

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::run {

/// What a re-plan decided about a parameter, or says about the round.
enum class ReplanAction {
  Widen,   // "widen": the domain grows past an edge its best values hit
  Drop,    // "drop": fixed to its default (it made no difference)
  Lift,    // "lift": candidates the plan left fixed become a parameter
  Keep,    // "keep": unchanged, with the reason why
  Planner, // "planner": what the planner did (or that it gave no plan)
  Note,    // "note": anything else worth saying
  Propose, // "propose": a change beyond the plan's parameters (Proposal)
};
/// "widen", "drop", ...: the spelling in replan JSON and in the report.
inline constexpr EnumName<ReplanAction> ReplanActionNames[] = {
    {ReplanAction::Widen, "widen"},     {ReplanAction::Drop, "drop"},
    {ReplanAction::Lift, "lift"},       {ReplanAction::Keep, "keep"},
    {ReplanAction::Planner, "planner"}, {ReplanAction::Note, "note"},
    {ReplanAction::Propose, "propose"},
};
std::string_view replanActionName(ReplanAction action);
std::optional<ReplanAction> parseReplanAction(std::string_view name);
std::ostream &operator<<(std::ostream &os, ReplanAction action);

/// One decision about one parameter (or the whole kernel).
struct ReplanReason {
  std::string kernel;
  std::string param; // empty for kernel-wide reasons
  ReplanAction action = ReplanAction::Note;
  std::string message;
};

/// A change the rules would make beyond the plan's parameters, from a
/// diagnosis of the analysis: a structural kind the refactorer introduces
/// ("row_split", "rows_per_block") or a register cap that reaches the user
/// through the source ("register_cap": `__launch_bounds__`).
struct Proposal {
  std::string kernel;
  std::vector<std::string> kinds; // alternatives, the likelier first
  std::string diagnosis;          // the analysis' message
  std::string change;             // what would change, with the figures
  bool available = false;         // this build can make the change
  std::string availability;       // why not, and what can be done today
};

struct ReplanDecision {
  Plan plan;             // valid for the candidates and sources
  bool changed = false;  // differs from the previous plan
  std::string replanner; // "rules", or the planner's description
  /// Planner only: "applied", "corrected", "fallback" (then the rules).
  std::string outcome;
  std::vector<ReplanReason> reasons;
  /// Each also has a "propose" reason.
  std::vector<Proposal> proposals;
};

/// Everything a re-plan may look at.
struct ReplanContext {
  int round = 1; // the round just tuned
  const Plan *plan = nullptr;
  /// One analysis per tuned kernel.
  const std::vector<KernelAnalysis> *analyses = nullptr;
  const CandidateSet *candidates = nullptr;
  const SourceTexts *sources = nullptr;
  std::string file; // the main file, as the candidates name it
  DeviceLimits device = assumedDeviceLimits();
  /// Parameters the spec fixes (its `domains` override the plan's).
  std::set<std::string> specDomains;
  /// Candidates dropped in earlier rounds: never lifted again.
  std::set<std::string> retiredCandidates;
  /// Names of the kernels being tuned (plan kernels outside it are kept as
  /// they are).
  std::vector<std::string> kernels;
  /// The device and architecture, for the tuning summary.
  std::string deviceName, arch;
};

class Replanner {
public:
  virtual ~Replanner() = default;
  /// "rules", "command:./agent", ...
  virtual std::string describe() const = 0;
  virtual Expected<ReplanDecision> replan(const ReplanContext &context) = 0;
};

/// Limits a widened domain must stay within, per parameter kind.
struct KindLimits {
  int64_t min = 1, max = 1;
  bool pow2 = false; // only powers of two make sense
};
/// block_size 1..max threads per block, warps_per_block 1..32,
/// vector_width 1..16 (powers of two), unroll 1..32, tile_size 1..128,
/// items_per_thread 1..64, grid_size 1..2^31-1; nullopt for `other` (no
/// known safe range).
std::optional<KindLimits> kindLimits(ParamKind kind,
                                     const DeviceLimits &device);

/// The domain widened past `edge` ("min" or "max"): powers of two go two
/// doublings (halvings) further, arithmetic domains by half their size in
/// steps (at least two), clamped to `limits`; nullopt when nothing can be
/// added.
std::optional<Domain> widenDomain(const Domain &domain, const std::string &edge,
                                  const KindLimits &limits);

/// Removes `param` from the plan kernel and replaces its name in the
/// constraints by `value`; constraints that then name no parameter are
/// dropped (they held at the defaults).
void fixParameter(PlanKernel &kernel, const std::string &param, int64_t value);

struct RuleOptions {
  /// Never drop a kernel's last parameter.
  bool keepLastParameter = true;
};

/// The deterministic rules.
std::unique_ptr<Replanner> makeRuleReplanner(RuleOptions options = {});

/// Asks `planner` (through planWithValidation, with previousPlan and the
/// tuning summary); when it falls back, the rules decide instead of the
/// heuristic plan. `planning` holds the audit directory and the log.
std::unique_ptr<Replanner>
makePlannerReplanner(std::shared_ptr<planner::Planner> planner,
                     planner::PlanningOptions planning,
                     RuleOptions fallback = {});

/// The "tuning-summary/1" object of a round (docs/llm-planners.md).
nlohmann::json tuningSummary(const ReplanContext &context);

/// When to stop after a round.
struct StopDecision {
  bool stop = false;
  std::string reason; // why, or why not
};
/// After round `round` (>= 2): stop when the geometric-mean gain over the
/// previous round's best is at most 1 + max(noise, minEffect) for every
/// kernel.
StopDecision gainStop(int round, const std::vector<KernelAnalysis> &previous,
                      const std::vector<KernelAnalysis> &current);

nlohmann::json replanDecisionToJson(const ReplanDecision &decision);

/// Kernel names compare as the plan chooser compares them.
using planner::sameKernel;

} // namespace ktune::run

#endif
