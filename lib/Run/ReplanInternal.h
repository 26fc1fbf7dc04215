//===- ReplanInternal.h - The pieces of re-planning -------------*- C++ -*-===//
//
//   Replan.cpp        the vocabulary (actions, kind limits, widened domains,
//                     fixing a parameter), the tuning summary, the stop rule
//   ReplanRules.cpp   the deterministic rules, one step per decision
//   ReplanPlanner.cpp asking a planner, with the rules as the fallback
//
// Nothing here is part of ktune's public API.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_LIB_RUN_REPLANINTERNAL_H
#define KTUNE_LIB_RUN_REPLANINTERNAL_H

#include "ktune/Run/Replan.h"

#include <map>
#include <string>
#include <vector>

namespace ktune::run::replan {

/// 12.345 -> "12.3%".
std::string percent(double v);
const KernelAnalysis *analysisFor(const std::vector<KernelAnalysis> &all,
                                  const std::string &planKernel);
/// The plan kernel is one of the kernels being tuned.
bool selected(const ReplanContext &ctx, const std::string &planKernel);

/// Describes how `after` differs from `before` for one kernel.
void describeChanges(const PlanKernel *before, const PlanKernel &after,
                     std::vector<ReplanReason> &out);

/// Candidates of the kernel that neither the plan lifts nor earlier rounds
/// (or this one) dropped.
std::vector<const Candidate *>
freeCandidates(const ReplanContext &ctx, const PlanKernel &kernel,
               const std::vector<std::string> &droppedNow);

/// `kernel` with `param` (from the wide heuristic plan `wide`) added,
/// renamed when its name is taken, and the constraints of `wide` that then
/// name only known parameters.
PlanKernel withLiftedParam(const PlanKernel &kernel, const PlanKernel &wide,
                           PlanParam &param);

/// The deterministic rules, one step per decision (see Replan.h).
class RuleReplanner : public Replanner {
public:
  explicit RuleReplanner(RuleOptions options) : Options(options) {}
  std::string describe() const override { return "rules"; }
  Expected<ReplanDecision> replan(const ReplanContext &ctx) override;

  void replanKernel(const ReplanContext &ctx, const KernelAnalysis &a,
                    PlanKernel &kernel, ReplanDecision &decision);
  /// Widens, keeps (with a reason) or marks for dropping one parameter;
  /// true when it made no difference and is to be dropped.
  bool decideParam(const ReplanContext &ctx, const KernelAnalysis &a,
                   const PlanKernel &kernel, PlanParam &p,
                   ReplanDecision &decision);
  /// Widens `p` past the edges where its best values sit, within the
  /// limits of its kind.
  void widenAtEdges(const ReplanContext &ctx, const KernelAnalysis &a,
                    const PlanKernel &kernel, PlanParam &p,
                    const std::vector<const EdgeHit *> &edges,
                    ReplanDecision &decision);
  /// Fixes each parameter in `toDrop` to its default (never the last one
  /// when the options say so).
  void dropInsensitive(const KernelAnalysis &a, PlanKernel &kernel,
                       const std::vector<std::string> &toDrop,
                       ReplanDecision &decision);
  /// Far from the roofline: lifts candidates the plan left fixed, as the
  /// heuristic planner would at low confidence.
  void liftIfFar(const ReplanContext &ctx, const KernelAnalysis &a,
                 PlanKernel &kernel, ReplanDecision &decision,
                 const std::vector<std::string> &droppedNow);

  /// What the parameters cannot do, from the analysis' diagnoses: a
  /// structural kind for a grid that leaves most SMs idle, a register cap
  /// where registers limit occupancy (proposals, not plan changes, until
  /// the refactorer introduces them).
  void proposeFromDiagnoses(const KernelAnalysis &a, const PlanKernel &kernel,
                            ReplanDecision &decision);
  /// The proposals made: row_split lifted for a small grid, a register cap
  /// (min_blocks) where registers limit occupancy, where the kernel has the
  /// candidate; else the refusal's reason recorded.
  void liftProposed(const ReplanContext &ctx, const KernelAnalysis &a,
                    PlanKernel &kernel, ReplanDecision &decision);
  /// Lifts row_split into `kernel` where it can; the proposal's
  /// availability: applied, or why not.
  std::string rowSplitOutcome(const ReplanContext &ctx, const KernelAnalysis &a,
                              PlanKernel &kernel, ReplanDecision &decision,
                              Proposal &proposal);
  /// Lifts each of the kernel's fixed_arg candidates; the availability:
  /// what became of each.
  std::string fixedArgOutcome(const ReplanContext &ctx, PlanKernel &kernel,
                              ReplanDecision &decision, Proposal &proposal);
  /// Lifts the kernel's register cap where it can; the availability.
  std::string registerCapOutcome(const ReplanContext &ctx,
                                 const KernelAnalysis &a, PlanKernel &kernel,
                                 ReplanDecision &decision, Proposal &proposal);

private:
  RuleOptions Options;
};

} // namespace ktune::run::replan

#endif
