//===- ReplanPlanner.cpp - Re-planning by a planner -----------------------===//
//
// A planner (command: or openai:) is asked through planWithValidation with
// the previous plan and the round's tuning summary; its plan replaces the
// tuned kernels' entries, and each change gets a reason. When it gives no
// valid plan, the rules decide.
//
//===----------------------------------------------------------------------===//

#include "ReplanInternal.h"

#include <algorithm>

namespace ktune::run::replan {

void describeChanges(const PlanKernel *before, const PlanKernel &after,
                     std::vector<ReplanReason> &out) {
  std::map<std::string, const PlanParam *> old;
  if (before)
    for (const auto &p : before->params)
      old[p.name] = &p;
  for (const auto &p : after.params) {
    auto it = old.find(p.name);
    if (it == old.end()) {
      std::string ids;
      for (const auto &c : p.candidates)
        ids += (ids.empty() ? "" : ", ") + c;
      out.push_back({after.kernel, p.name, ReplanAction::Lift,
                     "the planner lifts " + ids + " as " + p.name +
                         " with domain " + p.domain.describe()});
      continue;
    }
    if (it->second->domain.enumerate() != p.domain.enumerate())
      out.push_back({after.kernel, p.name, ReplanAction::Widen,
                     "the planner changes the domain " +
                         it->second->domain.describe() + " -> " +
                         p.domain.describe()});
    else
      out.push_back({after.kernel, p.name, ReplanAction::Keep,
                     "the planner keeps it: " + p.domain.describe()});
    old.erase(it);
  }
  for (const auto &[name, p] : old)
    out.push_back({after.kernel, name, ReplanAction::Drop,
                   "the planner no longer lifts it (fixed to its default " +
                       std::to_string(p->defaultValue) + ")"});
  if (before && before->constraints != after.constraints)
    out.push_back({after.kernel, "", ReplanAction::Note,
                   "the planner changes the constraints"});
}

class PlannerReplanner : public Replanner {
public:
  PlannerReplanner(std::shared_ptr<planner::Planner> planner,
                   planner::PlanningOptions planning, RuleOptions fallback)
      : Inner(std::move(planner)), Planning(std::move(planning)),
        Rules(fallback) {}
  std::string describe() const override { return Inner->describe(); }

  Expected<ReplanDecision> replan(const ReplanContext &ctx) override {
    planner::PlannerRequest request;
    request.file = ctx.file;
    request.sources = *ctx.sources;
    request.candidates = *ctx.candidates;
    request.device = ctx.device;
    request.previousPlan = *ctx.plan;
    request.tuningSummary = tuningSummary(ctx);
    KTUNE_TRY_ASSIGN(auto result,
                     planner::planWithValidation(*Inner, request, Planning));
    if (result.outcome == planner::PlanningOutcome::Fallback) {
      auto rules = Rules.replan(ctx);
      if (!rules)
        return rules;
      rules->replanner = Inner->describe() + ", then the rules";
      rules->outcome = "fallback";
      std::string why = "the planner gave no valid plan";
      if (!result.fallbackReasons.empty())
        why += " (" + result.fallbackReasons.front().str() + ")";
      rules->reasons.insert(
          rules->reasons.begin(),
          {"", "", ReplanAction::Planner, why + ": the rules decide"});
      return rules;
    }
    ReplanDecision decision;
    decision.replanner = Inner->describe();
    decision.outcome = std::string(planner::outcomeName(result.outcome));
    decision.plan = result.plan;
    // Only the kernels being tuned: the others keep the previous plan.
    Plan merged = *ctx.plan;
    merged.planner = decision.plan.planner;
    for (auto &k : merged.kernels)
      if (selected(ctx, k.kernel))
        for (const auto &nk : decision.plan.kernels)
          if (nk.kernel == k.kernel)
            k = nk;
    for (const auto &nk : decision.plan.kernels) {
      bool present = std::any_of(
          merged.kernels.begin(), merged.kernels.end(),
          [&](const PlanKernel &k) { return k.kernel == nk.kernel; });
      if (!present && selected(ctx, nk.kernel))
        merged.kernels.push_back(nk);
    }
    decision.plan = std::move(merged);
    decision.reasons.push_back(
        {"", "", ReplanAction::Planner,
         "plan from " + Inner->describe() + " (" + decision.outcome + ")"});
    for (const auto &k : decision.plan.kernels) {
      if (!selected(ctx, k.kernel))
        continue;
      const PlanKernel *before = nullptr;
      for (const auto &b : ctx.plan->kernels)
        if (b.kernel == k.kernel)
          before = &b;
      describeChanges(before, k, decision.reasons);
      // The planner saw the diagnoses; what they propose is recorded as
      // the rules would.
      if (const KernelAnalysis *a = analysisFor(*ctx.analyses, k.kernel))
        Rules.proposeFromDiagnoses(*a, k, decision);
    }
    decision.changed = planToJson(decision.plan)["kernels"] !=
                       planToJson(*ctx.plan)["kernels"];
    if (!decision.changed)
      decision.reasons.push_back(
          {"", "", ReplanAction::Note,
           "the planner's plan equals the previous one"});
    return decision;
  }

private:
  std::shared_ptr<planner::Planner> Inner;
  planner::PlanningOptions Planning;
  RuleReplanner Rules;
};

} // namespace ktune::run::replan

namespace ktune::run {

std::unique_ptr<Replanner>
makePlannerReplanner(std::shared_ptr<planner::Planner> planner,
                     planner::PlanningOptions planning, RuleOptions fallback) {
  return std::make_unique<replan::PlannerReplanner>(
      std::move(planner), std::move(planning), fallback);
}

} // namespace ktune::run
