//===- ReplanRules.cpp - The deterministic re-plan rules ------------------===//
//
// Per tuned kernel, one decision per parameter: widen a domain whose best
// value sits on its edge (within the hardware's limits for its kind), drop
// a parameter that made no difference beyond the noise, keep the rest with
// a reason; then, far from the roofline, lift candidates the plan left
// fixed; last, propose what the analysis diagnosed and the parameters
// cannot do (a structural kind, a register cap). Rules:
// docs/run.md#re-planning.
//
//===----------------------------------------------------------------------===//

#include "ReplanInternal.h"

#include "ktune/Expr/Expr.h"

#include <algorithm>
#include <optional>
#include <set>

namespace ktune::run::replan {

namespace {

void addReason(ReplanDecision &decision, const PlanKernel &kernel,
               const std::string &param, ReplanAction action,
               std::string message) {
  decision.reasons.push_back(
      {kernel.kernel, param, action, std::move(message)});
}

const InfluenceSummary *influenceOf(const KernelAnalysis &a,
                                    const std::string &param) {
  const InfluenceSummary *inf = nullptr;
  for (const auto &i : a.influence)
    if (i.param == param)
      inf = &i;
  return inf;
}

/// A proposal's "propose" reason.
std::string proposalText(const Proposal &p) {
  std::string kinds;
  for (const auto &k : p.kinds)
    kinds += (kinds.empty() ? "" : " or ") + k;
  return p.diagnosis + ": propose " + kinds + " (" + p.change + "); " +
         p.availability;
}

} // namespace

Expected<ReplanDecision> RuleReplanner::replan(const ReplanContext &ctx) {
  ReplanDecision decision;
  decision.replanner = "rules";
  decision.plan = *ctx.plan;
  decision.plan.planner =
      "ktune run rules after round " + std::to_string(ctx.round);
  for (auto &kernel : decision.plan.kernels) {
    if (!selected(ctx, kernel.kernel))
      continue;
    const KernelAnalysis *a = analysisFor(*ctx.analyses, kernel.kernel);
    if (!a) {
      decision.reasons.push_back({kernel.kernel, "", ReplanAction::Note,
                                  "not tuned this round: kept as it is"});
      continue;
    }
    replanKernel(ctx, *a, kernel, decision);
  }
  decision.changed =
      planToJson(decision.plan)["kernels"] != planToJson(*ctx.plan)["kernels"];
  if (!decision.changed)
    decision.reasons.push_back(
        {"", "", ReplanAction::Note, "no rule changes the plan"});
  return decision;
}

void RuleReplanner::replanKernel(const ReplanContext &ctx,
                                 const KernelAnalysis &a, PlanKernel &kernel,
                                 ReplanDecision &decision) {
  std::vector<std::string> toDrop;
  for (auto &p : kernel.params)
    if (decideParam(ctx, a, kernel, p, decision))
      toDrop.push_back(p.name);
  dropInsensitive(a, kernel, toDrop, decision);
  liftIfFar(ctx, a, kernel, decision, toDrop);
  proposeFromDiagnoses(a, kernel, decision);
  liftProposed(ctx, a, kernel, decision);
}

void RuleReplanner::liftProposed(const ReplanContext &ctx,
                                 const KernelAnalysis &a, PlanKernel &kernel,
                                 ReplanDecision &decision) {
  if (!ctx.candidates)
    return;
  for (Proposal &proposal : decision.proposals) {
    if (proposal.kernel != kernel.kernel)
      continue;
    auto proposes = [&](const char *kind) {
      return std::find(proposal.kinds.begin(), proposal.kinds.end(), kind) !=
             proposal.kinds.end();
    };
    // Its "propose" reason then says what became of it.
    std::string before = proposalText(proposal);
    if (proposes("row_split"))
      proposal.availability =
          rowSplitOutcome(ctx, a, kernel, decision, proposal);
    else if (proposes("fixed_arg"))
      proposal.availability = fixedArgOutcome(ctx, kernel, decision, proposal);
    else if (proposes("register_cap"))
      proposal.availability =
          registerCapOutcome(ctx, a, kernel, decision, proposal);
    else
      continue;
    for (auto &r : decision.reasons)
      if (r.action == ReplanAction::Propose && r.message == before)
        r.message = proposalText(proposal);
  }
}

/// Lifts the structural candidate `c` into `kernel` as `base` (base_2, ...
/// where the kernel has that name) with `domain`, where the plan stays
/// valid; the proposal's availability: applied, or why not. `effect` says
/// what the values do.
static std::string liftIntroduced(const ReplanContext &ctx, PlanKernel &kernel,
                                  ReplanDecision &decision, Proposal &proposal,
                                  const Candidate &c, const std::string &base,
                                  Domain domain, const std::string &effect) {
  PlanParam param;
  param.name = base;
  for (int n = 2; std::any_of(kernel.params.begin(), kernel.params.end(),
                              [&](auto &p) { return p.name == param.name; });
       ++n)
    param.name = base + "_" + std::to_string(n);
  param.kind = c.kind;
  param.candidates = {c.id};
  param.defaultValue = c.value;
  param.domain = std::move(domain);
  PlanKernel attempt = kernel;
  attempt.params.push_back(param);
  Plan trial = decision.plan;
  for (auto &k : trial.kernels)
    if (k.kernel == kernel.kernel)
      k = attempt;
  std::string kind(kindName(c.kind));
  auto errors = validatePlan(trial, *ctx.candidates, *ctx.sources);
  if (!errors.empty())
    return kind + " cannot be lifted: " + errors.front().str();
  kernel = attempt; // an element of decision.plan.kernels
  proposal.available = true;
  addReason(decision, kernel, param.name, ReplanAction::Lift,
            proposal.diagnosis + ": lifting " + c.id + " (" + kind + ") as " +
                param.name + " with domain " + param.domain.describe() + ": " +
                effect);
  return "applied: " + param.name + " (candidate " + c.id +
         ") in the next round";
}

/// The kernel's candidate of a structural `kind` that the loop has not
/// retired, or null.
static const Candidate *structuralCandidate(const ReplanContext &ctx,
                                            const std::string &kernel,
                                            ParamKind kind) {
  const Candidate *found = nullptr;
  for (const auto &c : ctx.candidates->candidates)
    if (c.kind == kind && sameKernel(c.kernel, kernel) &&
        !ctx.retiredCandidates.count(c.id))
      found = &c;
  return found;
}

/// Why the refactorer refused `kind` for the kernel; empty when it did not.
static std::string refusalOf(const ReplanContext &ctx,
                             const std::string &kernel, ParamKind kind) {
  for (const auto &r : ctx.candidates->refusals)
    if (r.kind == kind && sameKernel(r.kernel, kernel))
      return r.why;
  return "";
}

/// The register-limited diagnosis a proposal was made from.
static const Diagnosis *registerDiagnosis(const KernelAnalysis &a,
                                          const Proposal &proposal) {
  for (const Diagnosis &d : a.diagnoses)
    if (d.kind == DiagnosisKind::RegisterLimited &&
        d.message == proposal.diagnosis)
      return &d;
  return nullptr;
}

std::string RuleReplanner::registerCapOutcome(const ReplanContext &ctx,
                                              const KernelAnalysis &a,
                                              PlanKernel &kernel,
                                              ReplanDecision &decision,
                                              Proposal &proposal) {
  for (const PlanParam &p : kernel.params)
    if (p.kind == ParamKind::MinBlocks)
      return "the register cap is already tuned (" + p.name + ")";
  const Candidate *cap =
      structuralCandidate(ctx, kernel.kernel, ParamKind::MinBlocks);
  if (!cap) {
    std::string why = refusalOf(ctx, kernel.kernel, ParamKind::MinBlocks);
    return why.empty() ? "the refactorer offers no register cap for this kernel"
                       : "register cap refused: " + why;
  }
  const Diagnosis *d = registerDiagnosis(a, proposal);
  // Bounds ktune writes name 1024 threads; a kernel's own, its block.
  bool written = !cap->sites.empty() &&
                 cap->sites.front().replacement == RegisterCapBounds;
  int64_t threads = written ? 1024
                    : d     ? std::max<int64_t>(1, d->threadsPerBlock)
                            : 1024;
  int64_t most = std::min<int64_t>(
      kindLimits(ParamKind::MinBlocks, ctx.device)->max,
      std::max<int64_t>(1, ctx.device.maxThreadsPerSM / threads));
  std::vector<int64_t> values = {cap->value};
  for (int64_t m = 1; m <= most; ++m)
    if (m != cap->value)
      values.push_back(m);
  std::sort(values.begin(), values.end());
  return liftIntroduced(
      ctx, kernel, decision, proposal, *cap, "MIN_BLOCKS",
      Domain::ofValues(values),
      "M resident blocks of " + std::to_string(threads) +
          " threads per SM in __launch_bounds__, at most 65536 / (" +
          std::to_string(threads) + " * M) registers per thread");
}

/// Blocks per row from 1 to the power of two that gives the smallest
/// grid diagnosed a block on every SM (a one-row shape on 132 SMs: 256),
/// at least 32, at most what row_split allows.
static Domain rowSplitDomain(const KernelAnalysis &a,
                             const DeviceLimits &device) {
  const int64_t most = kindLimits(ParamKind::RowSplit, device)->max;
  int64_t enough = 32;
  for (const Diagnosis &d : a.diagnoses)
    if (d.kind == DiagnosisKind::SmallGrid && d.smCount > 0)
      while (enough < most && enough * std::max(1, d.smsBusy) < d.smCount)
        enough *= 2;
  std::vector<int64_t> values;
  for (int64_t v = 1; v <= enough; v *= 2)
    values.push_back(v);
  return Domain::ofValues(values);
}

std::string RuleReplanner::rowSplitOutcome(const ReplanContext &ctx,
                                           const KernelAnalysis &a,
                                           PlanKernel &kernel,
                                           ReplanDecision &decision,
                                           Proposal &proposal) {
  if (std::any_of(
          kernel.params.begin(), kernel.params.end(),
          [](const PlanParam &p) { return p.kind == ParamKind::RowSplit; }))
    return "row_split is already tuned: " + proposal.availability;
  const Candidate *split =
      structuralCandidate(ctx, kernel.kernel, ParamKind::RowSplit);
  if (!split) {
    std::string why = refusalOf(ctx, kernel.kernel, ParamKind::RowSplit);
    return why.empty() ? proposal.availability
                       : "row_split refused: " + why +
                             "; rows_per_block is not available in this build "
                             "yet";
  }
  return liftIntroduced(ctx, kernel, decision, proposal, *split, "ROW_SPLIT",
                        rowSplitDomain(a, ctx.device),
                        "each row over that many blocks");
}

std::string RuleReplanner::fixedArgOutcome(const ReplanContext &ctx,
                                           PlanKernel &kernel,
                                           ReplanDecision &decision,
                                           Proposal &proposal) {
  std::vector<std::string> outcomes;
  for (const auto &c : ctx.candidates->candidates) {
    if (c.kind != ParamKind::FixedArg || !sameKernel(c.kernel, kernel.kernel) ||
        ctx.retiredCandidates.count(c.id))
      continue;
    bool lifted = std::any_of(
        kernel.params.begin(), kernel.params.end(), [&](const PlanParam &p) {
          return std::find(p.candidates.begin(), p.candidates.end(), c.id) !=
                 p.candidates.end();
        });
    if (lifted) {
      outcomes.push_back(c.fixesArgument + " is already fixed per shape");
      continue;
    }
    // The values come from the spec's shapes when the round is tuned.
    outcomes.push_back(liftIntroduced(
        ctx, kernel, decision, proposal, c, suggestedParamName(c),
        Domain::ofValues({c.value}),
        "the argument " + c.fixesArgument +
            " a compile-time constant at each shape that sets it (0: read "
            "at run time)"));
  }
  for (const auto &r : ctx.candidates->refusals)
    if (r.kind == ParamKind::FixedArg && sameKernel(r.kernel, kernel.kernel))
      outcomes.push_back("refused: " + r.why);
  if (outcomes.empty())
    return "the kernel has no integer argument to fix";
  std::string text;
  for (const auto &o : outcomes)
    text += (text.empty() ? "" : "; ") + o;
  return text;
}

void RuleReplanner::proposeFromDiagnoses(const KernelAnalysis &a,
                                         const PlanKernel &kernel,
                                         ReplanDecision &decision) {
  for (const Diagnosis &d : a.diagnoses) {
    Proposal p;
    p.kernel = kernel.kernel;
    p.diagnosis = d.message;
    std::optional<Proposal> fixed;
    if (d.kind == DiagnosisKind::SmallGrid) {
      // Only more blocks can fill the GPU: split each row over several
      // blocks where the row's loops are block-stride with no
      // communication between threads; rows with block reductions can
      // take a warp per row in smaller blocks instead.
      p.kinds = {"row_split", "rows_per_block"};
      p.change = "more blocks: each row split over several blocks "
                 "(row_split) where the row's loops are block-stride and its "
                 "threads do not communicate, else a warp per row "
                 "(rows_per_block) for rows with block reductions";
      p.availability = "not available in this build: the refactorer does "
                       "not introduce structural parameters yet";
      // At so few blocks the kernel's time is latency, index arithmetic
      // over run-time arguments included: fix them per shape.
      fixed = p;
      fixed->kinds = {"fixed_arg"};
      fixed->change = "the kernel's integer arguments that the shape sets "
                      "fixed at compile time, so index arithmetic over them "
                      "folds; launched only where the argument has that value";
      fixed->availability = "the refactorer offers no fixed argument for "
                            "this kernel";
    } else {
      p.kinds = {"register_cap"};
      p.change = "__launch_bounds__(" + std::to_string(d.threadsPerBlock) +
                 ", " + std::to_string(d.minBlocks) +
                 ") on the kernel: at "
                 "most " +
                 std::to_string(d.capRegisters) +
                 " registers per thread, in the source the user builds";
      p.availability = "the refactorer offers no register cap for this "
                       "kernel";
    }
    addReason(decision, kernel, "", ReplanAction::Propose, proposalText(p));
    decision.proposals.push_back(std::move(p));
    if (fixed) {
      addReason(decision, kernel, "", ReplanAction::Propose,
                proposalText(*fixed));
      decision.proposals.push_back(std::move(*fixed));
    }
  }
}

bool RuleReplanner::decideParam(const ReplanContext &ctx,
                                const KernelAnalysis &a,
                                const PlanKernel &kernel, PlanParam &p,
                                ReplanDecision &decision) {
  if (ctx.specDomains.count(p.name)) {
    addReason(decision, kernel, p.name, ReplanAction::Keep,
              "the spec's `domains` set this parameter's values; change "
              "them there");
    return false;
  }
  std::vector<const EdgeHit *> edges;
  for (const auto &e : a.edges)
    if (e.param == p.name && e.mattered > 0)
      edges.push_back(&e);
  const InfluenceSummary *inf = influenceOf(a, p.name);

  if (!edges.empty()) {
    widenAtEdges(ctx, a, kernel, p, edges, decision);
    return false;
  }
  if (inf && inf->insensitive)
    return true;
  if (!inf || inf->shapesMeasured == 0) {
    addReason(decision, kernel, p.name, ReplanAction::Keep,
              "fewer than two of its values were measured at any shape: "
              "its influence is unknown");
    return false;
  }
  addReason(decision, kernel, p.name, ReplanAction::Keep,
            "best values inside the domain; it moves the best time by up "
            "to " +
                percent(inf->maxSpreadPct) + " (noise threshold " +
                percent(inf->noisePct) + ")");
  return false;
}

void RuleReplanner::widenAtEdges(const ReplanContext &ctx,
                                 const KernelAnalysis &a,
                                 const PlanKernel &kernel, PlanParam &p,
                                 const std::vector<const EdgeHit *> &edges,
                                 ReplanDecision &decision) {
  size_t shapes = a.shapes.size();
  auto limits = kindLimits(p.kind, ctx.device);
  std::string where;
  for (const EdgeHit *e : edges)
    where += (where.empty() ? "" : "; ") + std::string("best value ") +
             std::to_string(e->value) + " at the " +
             (e->edge == "min" ? "low" : "high") + " edge in " +
             std::to_string(e->shapes) + " of " + std::to_string(shapes) +
             " shape" + (shapes == 1 ? "" : "s");
  if (!limits) {
    addReason(decision, kernel, p.name, ReplanAction::Keep,
              where + ", but a parameter of kind 'other' has no known "
                      "safe range to widen into");
    return;
  }
  Domain widened = p.domain;
  for (const EdgeHit *e : edges) {
    KindLimits l = *limits;
    auto values = widened.enumerate();
    l.min = std::min(l.min, *std::min_element(values.begin(), values.end()));
    if (auto w = widenDomain(widened, e->edge, l))
      widened = *w;
  }
  if (widened.enumerate() == p.domain.enumerate()) {
    addReason(decision, kernel, p.name, ReplanAction::Keep,
              where + ", already at the limit for " +
                  std::string(kindName(p.kind)) + " (" +
                  std::to_string(limits->min) + ".." +
                  std::to_string(limits->max) + ")");
    return;
  }
  addReason(decision, kernel, p.name, ReplanAction::Widen,
            where + ": domain " + p.domain.describe() + " -> " +
                widened.describe());
  p.domain = widened;
}

void RuleReplanner::dropInsensitive(const KernelAnalysis &a, PlanKernel &kernel,
                                    const std::vector<std::string> &toDrop,
                                    ReplanDecision &decision) {
  for (const auto &name : toDrop) {
    const InfluenceSummary *inf = influenceOf(a, name);
    auto it = std::find_if(kernel.params.begin(), kernel.params.end(),
                           [&](const PlanParam &p) { return p.name == name; });
    std::string why =
        "its largest effect on the best time, " + percent(inf->maxSpreadPct) +
        " over " + std::to_string(inf->shapesMeasured) +
        " shape(s), is within the noise threshold " + percent(inf->noisePct);
    if (Options.keepLastParameter && kernel.params.size() == 1) {
      addReason(decision, kernel, name, ReplanAction::Keep,
                why + "; kept as the kernel's last parameter");
      continue;
    }
    int64_t value = it->defaultValue;
    std::string ids;
    for (const auto &c : it->candidates)
      ids += (ids.empty() ? "" : ", ") + c;
    addReason(decision, kernel, name, ReplanAction::Drop,
              why + ": fixed to its default " + std::to_string(value) +
                  " (candidate" + (it->candidates.size() == 1 ? " " : "s ") +
                  ids + " no longer lifted)");
    fixParameter(kernel, name, value);
  }
}

std::vector<const Candidate *>
freeCandidates(const ReplanContext &ctx, const PlanKernel &kernel,
               const std::vector<std::string> &droppedNow) {
  std::set<std::string> inPlan;
  for (const auto &p : kernel.params)
    inPlan.insert(p.candidates.begin(), p.candidates.end());
  std::set<std::string> dropped = ctx.retiredCandidates;
  for (const auto &p : ctx.plan->kernels)
    if (sameKernel(p.kernel, kernel.kernel))
      for (const auto &param : p.params)
        if (std::find(droppedNow.begin(), droppedNow.end(), param.name) !=
            droppedNow.end())
          dropped.insert(param.candidates.begin(), param.candidates.end());
  std::vector<const Candidate *> free;
  for (const auto &c : ctx.candidates->candidates)
    if (sameKernel(c.kernel, kernel.kernel) && !inPlan.count(c.id) &&
        !dropped.count(c.id) && ctx.candidates->find(c.id) == &c &&
        !isIntroduced(c)) // structural: lifted from a diagnosis only
      free.push_back(&c);
  return free;
}

PlanKernel withLiftedParam(const PlanKernel &kernel, const PlanKernel &wide,
                           PlanParam &param) {
  PlanKernel attempt = kernel;
  std::map<std::string, std::string> renames;
  std::set<std::string> taken;
  for (const auto &p : attempt.params)
    taken.insert(p.name);
  if (taken.count(param.name)) {
    std::string base = param.name;
    for (int n = 2; taken.count(param.name); ++n)
      param.name = base + "_" + std::to_string(n);
    renames[base] = param.name;
  }
  attempt.params.push_back(param);
  std::set<std::string> names = taken;
  names.insert(param.name);
  for (const auto &c : wide.constraints) {
    std::string text = expr::renameIdentifiers(c, renames);
    auto parsed = expr::Expr::parse(text);
    if (!parsed)
      continue;
    auto used = parsed->names();
    bool mentionsNew =
        std::find(used.begin(), used.end(), param.name) != used.end();
    bool known =
        std::all_of(used.begin(), used.end(),
                    [&](const std::string &n) { return names.count(n) > 0; });
    if (mentionsNew && known &&
        std::find(attempt.constraints.begin(), attempt.constraints.end(),
                  text) == attempt.constraints.end())
      attempt.constraints.push_back(text);
  }
  return attempt;
}

void RuleReplanner::liftIfFar(const ReplanContext &ctx, const KernelAnalysis &a,
                              PlanKernel &kernel, ReplanDecision &decision,
                              const std::vector<std::string> &droppedNow) {
  auto reason = [&](const std::string &param, ReplanAction action,
                    std::string message) {
    addReason(decision, kernel, param, action, std::move(message));
  };
  if (!a.rooflinePct) {
    if (!a.notes.empty())
      reason("", ReplanAction::Note, a.notes.front());
    return;
  }
  std::string at = "the best configurations reach " + percent(*a.rooflinePct) +
                   " of the roofline" +
                   (a.anyBandwidthRelevant ? " on bandwidth-bound shapes" : "");
  if (!a.farFromRoofline) {
    reason("", ReplanAction::Note,
           at + (a.anyBandwidthRelevant ? ": no candidate lifted"
                                        : " (every shape latency-bound): "
                                          "no candidate lifted"));
    return;
  }

  std::vector<const Candidate *> free = freeCandidates(ctx, kernel, droppedNow);
  if (free.empty()) {
    reason("", ReplanAction::Note,
           at + ", below 80%, but every candidate is lifted "
                "or was dropped as making no difference");
    return;
  }

  Plan wide = defaultPlan(*ctx.candidates, *ctx.sources, Confidence::Low);
  const PlanKernel *wk = nullptr;
  for (const auto &k : wide.kernels)
    if (sameKernel(k.kernel, kernel.kernel))
      wk = &k;

  std::set<std::string> freeIds;
  for (const Candidate *c : free)
    freeIds.insert(c->id);
  std::set<std::string> lifted;
  if (wk)
    for (const auto &hp : wk->params) {
      bool allFree = std::all_of(
          hp.candidates.begin(), hp.candidates.end(),
          [&](const std::string &id) { return freeIds.count(id) > 0; });
      if (!allFree)
        continue;
      PlanParam param = hp;
      param.note.clear();
      PlanKernel attempt = withLiftedParam(kernel, *wk, param);
      Plan trial = decision.plan;
      for (auto &k : trial.kernels)
        if (k.kernel == kernel.kernel)
          k = attempt;
      auto errors = validatePlan(trial, *ctx.candidates, *ctx.sources);
      std::string ids;
      for (const auto &id : param.candidates) {
        const Candidate *c = ctx.candidates->find(id);
        ids += (ids.empty() ? "" : ", ") + id + " (" +
               std::string(kindName(c->kind)) + ", " +
               std::string(confidenceName(c->confidence)) + " confidence, '" +
               c->spelling + "')";
      }
      if (!errors.empty()) {
        reason(param.name, ReplanAction::Note,
               "cannot lift " + ids + ": " + errors.front().str());
        continue;
      }
      kernel = attempt;
      for (auto &k : decision.plan.kernels)
        if (k.kernel == kernel.kernel)
          k = kernel;
      lifted.insert(param.candidates.begin(), param.candidates.end());
      reason(param.name, ReplanAction::Lift,
             at + ", below 80%: lifting " + ids + " as " + param.name +
                 " with domain " + param.domain.describe());
    }
  for (const Candidate *c : free)
    if (!lifted.count(c->id) &&
        !(wk && std::any_of(wk->params.begin(), wk->params.end(),
                            [&](const PlanParam &p) {
                              return std::find(p.candidates.begin(),
                                               p.candidates.end(),
                                               c->id) != p.candidates.end();
                            })))
      reason("", ReplanAction::Note,
             "candidate " + c->id + " (" + std::string(kindName(c->kind)) +
                 ", '" + c->spelling +
                 "') is not lifted: the heuristic planner finds no safe "
                 "plan for it");
}

} // namespace ktune::run::replan

namespace ktune::run {

std::unique_ptr<Replanner> makeRuleReplanner(RuleOptions options) {
  return std::make_unique<replan::RuleReplanner>(options);
}

} // namespace ktune::run
