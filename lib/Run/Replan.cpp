//===- Replan.cpp - Rule-based re-planning, the stop rule -----------------===//
#include "ktune/Run/Replan.h"

#include "ktune/Expr/Expr.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

namespace ktune::run {

using nlohmann::json;

namespace {

std::string percent(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", v);
  return buf;
}

bool isPowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

const KernelAnalysis *analysisFor(const std::vector<KernelAnalysis> &all,
                                  const std::string &planKernel) {
  for (const auto &a : all)
    if (sameKernel(planKernel, a.kernel))
      return &a;
  return nullptr;
}

bool selected(const ReplanContext &ctx, const std::string &planKernel) {
  if (ctx.kernels.empty())
    return true;
  for (const auto &k : ctx.kernels)
    if (sameKernel(planKernel, k))
      return true;
  return false;
}

class RuleReplanner : public Replanner {
public:
  explicit RuleReplanner(RuleOptions options) : Options(options) {}
  std::string describe() const override { return "rules"; }

  Expected<ReplanDecision> replan(const ReplanContext &ctx) override {
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
        decision.reasons.push_back(
            {kernel.kernel, "", "note", "not tuned this round: kept as it is"});
        continue;
      }
      replanKernel(ctx, *a, kernel, decision);
    }
    decision.changed = planToJson(decision.plan)["kernels"] !=
                       planToJson(*ctx.plan)["kernels"];
    if (!decision.changed)
      decision.reasons.push_back({"", "", "note", "no rule changes the plan"});
    return decision;
  }

private:
  RuleOptions Options;

  void replanKernel(const ReplanContext &ctx, const KernelAnalysis &a,
                    PlanKernel &kernel, ReplanDecision &decision) {
    auto reason = [&](const std::string &param, const std::string &action,
                      std::string message) {
      decision.reasons.push_back(
          {kernel.kernel, param, action, std::move(message)});
    };
    size_t shapes = a.shapes.size();
    std::vector<std::string> toDrop;
    for (auto &p : kernel.params) {
      if (ctx.specDomains.count(p.name)) {
        reason(p.name, "keep",
               "the spec's `domains` set this parameter's values; change "
               "them there");
        continue;
      }
      std::vector<const EdgeHit *> edges;
      for (const auto &e : a.edges)
        if (e.param == p.name && e.mattered > 0)
          edges.push_back(&e);
      const InfluenceSummary *inf = nullptr;
      for (const auto &i : a.influence)
        if (i.param == p.name)
          inf = &i;

      if (!edges.empty()) {
        auto limits = kindLimits(p.kind, ctx.device);
        std::string where;
        for (const EdgeHit *e : edges)
          where += (where.empty() ? "" : "; ") + std::string("best value ") +
                   std::to_string(e->value) + " at the " +
                   (e->edge == "min" ? "low" : "high") + " edge in " +
                   std::to_string(e->shapes) + " of " + std::to_string(shapes) +
                   " shape" + (shapes == 1 ? "" : "s");
        if (!limits) {
          reason(p.name, "keep",
                 where + ", but a parameter of kind 'other' has no known "
                         "safe range to widen into");
          continue;
        }
        Domain widened = p.domain;
        for (const EdgeHit *e : edges) {
          KindLimits l = *limits;
          auto values = widened.enumerate();
          l.min =
              std::min(l.min, *std::min_element(values.begin(), values.end()));
          if (auto w = widenDomain(widened, e->edge, l))
            widened = *w;
        }
        if (widened.enumerate() == p.domain.enumerate()) {
          reason(p.name, "keep",
                 where + ", already at the limit for " +
                     std::string(kindName(p.kind)) + " (" +
                     std::to_string(limits->min) + ".." +
                     std::to_string(limits->max) + ")");
          continue;
        }
        reason(p.name, "widen",
               where + ": domain " + p.domain.describe() + " -> " +
                   widened.describe());
        p.domain = widened;
        continue;
      }
      if (inf && inf->insensitive) {
        toDrop.push_back(p.name);
        continue;
      }
      if (!inf || inf->shapesMeasured == 0) {
        reason(p.name, "keep",
               "fewer than two of its values were measured at any shape: "
               "its influence is unknown");
        continue;
      }
      reason(p.name, "keep",
             "best values inside the domain; it moves the best time by up "
             "to " +
                 percent(inf->maxSpreadPct) + " (noise threshold " +
                 percent(inf->noisePct) + ")");
    }

    for (const auto &name : toDrop) {
      const InfluenceSummary *inf = nullptr;
      for (const auto &i : a.influence)
        if (i.param == name)
          inf = &i;
      auto it =
          std::find_if(kernel.params.begin(), kernel.params.end(),
                       [&](const PlanParam &p) { return p.name == name; });
      std::string why =
          "its largest effect on the best time, " + percent(inf->maxSpreadPct) +
          " over " + std::to_string(inf->shapesMeasured) +
          " shape(s), is within the noise threshold " + percent(inf->noisePct);
      if (Options.keepLastParameter && kernel.params.size() == 1) {
        reason(name, "keep", why + "; kept as the kernel's last parameter");
        continue;
      }
      int64_t value = it->defaultValue;
      reason(
          name, "drop",
          why + ": fixed to its default " + std::to_string(value) +
              " (candidate" + (it->candidates.size() == 1 ? " " : "s ") +
              [&] {
                std::string s;
                for (const auto &c : it->candidates)
                  s += (s.empty() ? "" : ", ") + c;
                return s;
              }() +
              " no longer lifted)");
      fixParameter(kernel, name, value);
    }

    liftIfFar(ctx, a, kernel, decision, toDrop);
  }

  void liftIfFar(const ReplanContext &ctx, const KernelAnalysis &a,
                 PlanKernel &kernel, ReplanDecision &decision,
                 const std::vector<std::string> &droppedNow) {
    auto reason = [&](const std::string &param, const std::string &action,
                      std::string message) {
      decision.reasons.push_back(
          {kernel.kernel, param, action, std::move(message)});
    };
    if (!a.rooflinePct) {
      if (!a.notes.empty())
        reason("", "note", a.notes.front());
      return;
    }
    std::string at =
        "the best configurations reach " + percent(*a.rooflinePct) +
        " of the roofline" +
        (a.anyBandwidthRelevant ? " on bandwidth-bound shapes" : "");
    if (!a.farFromRoofline) {
      reason("", "note",
             at + (a.anyBandwidthRelevant ? ": no candidate lifted"
                                          : " (every shape latency-bound): "
                                            "no candidate lifted"));
      return;
    }

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
          !dropped.count(c.id) && ctx.candidates->find(c.id) == &c)
        free.push_back(&c);
    if (free.empty()) {
      reason("", "note",
             at + ", below 80%, but every candidate is lifted "
                  "or was dropped as making no difference");
      return;
    }

    HeuristicOptions ho;
    ho.minConfidence = Confidence::Low;
    ho.sources = ctx.sources;
    Plan wide = heuristicPlan(*ctx.candidates, ho);
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
        PlanKernel attempt = kernel;
        PlanParam param = hp;
        param.note.clear();
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
        for (const auto &c : wk->constraints) {
          std::string text = expr::renameIdentifiers(c, renames);
          auto parsed = expr::Expr::parse(text);
          if (!parsed)
            continue;
          auto used = parsed->names();
          bool mentionsNew =
              std::find(used.begin(), used.end(), param.name) != used.end();
          bool known =
              std::all_of(used.begin(), used.end(), [&](const std::string &n) {
                return names.count(n) > 0;
              });
          if (mentionsNew && known &&
              std::find(attempt.constraints.begin(), attempt.constraints.end(),
                        text) == attempt.constraints.end())
            attempt.constraints.push_back(text);
        }
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
          reason(param.name, "note",
                 "cannot lift " + ids + ": " + errors.front().str());
          continue;
        }
        kernel = attempt;
        for (auto &k : decision.plan.kernels)
          if (k.kernel == kernel.kernel)
            k = kernel;
        lifted.insert(param.candidates.begin(), param.candidates.end());
        reason(param.name, "lift",
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
        reason("", "note",
               "candidate " + c->id + " (" + std::string(kindName(c->kind)) +
                   ", '" + c->spelling +
                   "') is not lifted: the heuristic planner finds no safe "
                   "plan for it");
  }
};

/// Describes how `after` differs from `before` for one kernel.
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
      out.push_back({after.kernel, p.name, "lift",
                     "the planner lifts " + ids + " as " + p.name +
                         " with domain " + p.domain.describe()});
      continue;
    }
    if (it->second->domain.enumerate() != p.domain.enumerate())
      out.push_back({after.kernel, p.name, "widen",
                     "the planner changes the domain " +
                         it->second->domain.describe() + " -> " +
                         p.domain.describe()});
    else
      out.push_back({after.kernel, p.name, "keep",
                     "the planner keeps it: " + p.domain.describe()});
    old.erase(it);
  }
  for (const auto &[name, p] : old)
    out.push_back({after.kernel, name, "drop",
                   "the planner no longer lifts it (fixed to its default " +
                       std::to_string(p->defaultValue) + ")"});
  if (before && before->constraints != after.constraints)
    out.push_back(
        {after.kernel, "", "note", "the planner changes the constraints"});
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
    auto result = planner::planWithValidation(*Inner, request, Planning);
    if (!result)
      return std::unexpected(result.error());
    if (result->outcome == planner::PlanningOutcome::Fallback) {
      auto rules = Rules.replan(ctx);
      if (!rules)
        return rules;
      rules->replanner = Inner->describe() + ", then the rules";
      rules->outcome = "fallback";
      std::string why = "the planner gave no valid plan";
      if (!result->fallbackReasons.empty())
        why += " (" + result->fallbackReasons.front().str() + ")";
      rules->reasons.insert(rules->reasons.begin(),
                            {"", "", "planner", why + ": the rules decide"});
      return rules;
    }
    ReplanDecision decision;
    decision.replanner = Inner->describe();
    decision.outcome = std::string(planner::outcomeName(result->outcome));
    decision.plan = result->plan;
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
        {"", "", "planner",
         "plan from " + Inner->describe() + " (" + decision.outcome + ")"});
    for (const auto &k : decision.plan.kernels) {
      if (!selected(ctx, k.kernel))
        continue;
      const PlanKernel *before = nullptr;
      for (const auto &b : ctx.plan->kernels)
        if (b.kernel == k.kernel)
          before = &b;
      describeChanges(before, k, decision.reasons);
    }
    decision.changed = planToJson(decision.plan)["kernels"] !=
                       planToJson(*ctx.plan)["kernels"];
    if (!decision.changed)
      decision.reasons.push_back(
          {"", "", "note", "the planner's plan equals the previous one"});
    return decision;
  }

private:
  std::shared_ptr<planner::Planner> Inner;
  planner::PlanningOptions Planning;
  RuleReplanner Rules;
};

} // namespace

std::optional<KindLimits> kindLimits(ParamKind kind,
                                     const planner::DeviceFacts &device) {
  switch (kind) {
  case ParamKind::BlockSize:
    return KindLimits{32, device.maxThreadsPerBlock, false};
  case ParamKind::WarpsPerBlock:
    return KindLimits{1, device.maxThreadsPerBlock / device.warpSize, false};
  case ParamKind::VectorWidth:
    return KindLimits{1, 16, true};
  case ParamKind::Unroll:
    return KindLimits{1, 32, false};
  case ParamKind::TileSize:
    return KindLimits{1, 128, false};
  case ParamKind::ItemsPerThread:
    return KindLimits{1, 64, false};
  case ParamKind::Other:
    break;
  }
  return std::nullopt;
}

std::optional<Domain> widenDomain(const Domain &domain, const std::string &edge,
                                  const KindLimits &limits) {
  std::vector<int64_t> values = domain.enumerate();
  if (values.empty())
    return std::nullopt;
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  bool pow2 =
      limits.pow2 || (domain.form == Domain::Form::Range && domain.pow2);
  if (!pow2 && domain.form == Domain::Form::Values && values.size() >= 2)
    pow2 = std::all_of(values.begin(), values.end(), isPowerOfTwo);
  int64_t step = 1;
  if (domain.form == Domain::Form::Range && !domain.pow2)
    step = domain.step;
  else if (values.size() >= 2)
    step = edge == "max" ? values.back() - values[values.size() - 2]
                         : values[1] - values[0];
  step = std::max<int64_t>(step, 1);

  std::vector<int64_t> added;
  if (edge == "max") {
    int64_t v = values.back();
    size_t n = pow2 ? 2 : std::max<size_t>(2, values.size() / 2);
    for (size_t i = 0; i < n; ++i) {
      v = pow2 ? v * 2 : v + step;
      if (v > limits.max)
        break;
      added.push_back(v);
    }
  } else {
    int64_t v = values.front();
    size_t n = pow2 ? 2 : std::max<size_t>(2, values.size() / 2);
    for (size_t i = 0; i < n; ++i) {
      if (pow2 && v % 2 != 0)
        break;
      v = pow2 ? v / 2 : v - step;
      if (v < limits.min || v < 1)
        break;
      added.push_back(v);
    }
  }
  if (added.empty())
    return std::nullopt;
  values.insert(values.end(), added.begin(), added.end());
  std::sort(values.begin(), values.end());
  if (domain.form == Domain::Form::Range && domain.pow2)
    return Domain::ofPow2Range(values.front(), values.back());
  if (domain.form == Domain::Form::Range)
    return Domain::ofRange(values.front(), values.back(), domain.step);
  return Domain::ofValues(values);
}

void fixParameter(PlanKernel &kernel, const std::string &param, int64_t value) {
  kernel.params.erase(
      std::remove_if(kernel.params.begin(), kernel.params.end(),
                     [&](const PlanParam &p) { return p.name == param; }),
      kernel.params.end());
  std::vector<std::string> kept;
  std::map<std::string, expr::Expr> with{{param, expr::Expr::integer(value)}};
  for (const auto &c : kernel.constraints) {
    auto parsed = expr::Expr::parse(c);
    if (!parsed) {
      kept.push_back(c);
      continue;
    }
    auto names = parsed->names();
    if (std::find(names.begin(), names.end(), param) == names.end()) {
      kept.push_back(c);
      continue;
    }
    expr::Expr fixed = parsed->substitute(with);
    if (fixed.names().empty())
      continue; // held at the defaults, says nothing now
    kept.push_back(fixed.str());
  }
  kernel.constraints = std::move(kept);
}

std::unique_ptr<Replanner> makeRuleReplanner(RuleOptions options) {
  return std::make_unique<RuleReplanner>(options);
}

std::unique_ptr<Replanner>
makePlannerReplanner(std::shared_ptr<planner::Planner> planner,
                     planner::PlanningOptions planning, RuleOptions fallback) {
  return std::make_unique<PlannerReplanner>(std::move(planner),
                                            std::move(planning), fallback);
}

json tuningSummary(const ReplanContext &ctx) {
  json summary{{"ktune", "tuning-summary/1"}, {"round", ctx.round}};
  if (!ctx.deviceName.empty())
    summary["device"] = ctx.deviceName;
  if (!ctx.arch.empty())
    summary["arch"] = ctx.arch;
  json kernels = json::array();
  json notes = json::array();
  for (const auto &a : *ctx.analyses) {
    json k{{"kernel", a.kernel},
           {"evaluated", a.evaluated},
           {"statuses", a.statusCounts}};
    json shapes = json::array();
    for (const auto &s : a.shapes) {
      json sj{{"shape", s.shape}};
      if (s.defaultUs)
        sj["default_us"] = *s.defaultUs;
      if (s.bestUs) {
        json config = json::object();
        for (const auto &[n, v] : s.bestConfig)
          config[n] = v;
        json best{{"config", config}, {"time_us", *s.bestUs}};
        if (s.rooflinePct)
          best["roofline_pct"] = *s.rooflinePct;
        sj["best"] = best;
        sj["speedup"] = s.speedup;
      }
      shapes.push_back(sj);
    }
    k["shapes"] = shapes;
    json edges = json::array();
    for (const auto &e : a.edges)
      if (e.mattered > 0) // an edge of a parameter within the noise is luck
        edges.push_back({{"param", e.param},
                         {"edge", e.edge},
                         {"value", e.value},
                         {"shapes", e.shapes}});
    k["edges_hit"] = edges;
    json insensitive = json::array();
    json influence = json::array();
    for (const auto &i : a.influence) {
      if (i.insensitive)
        insensitive.push_back(
            {{"param", i.param}, {"spread_pct", i.maxSpreadPct}});
      influence.push_back({{"param", i.param},
                           {"max_spread_pct", i.maxSpreadPct},
                           {"shapes_measured", i.shapesMeasured}});
    }
    k["insensitive_params"] = insensitive;
    k["influence"] = influence;
    k["noise_pct"] = 100.0 * a.noise;
    if (a.rooflinePct)
      k["roofline_pct"] = *a.rooflinePct;
    k["far_from_roofline"] = a.farFromRoofline;
    // Candidates the plan leaves fixed: what a planner could lift next.
    std::set<std::string> lifted;
    for (const auto &pk : ctx.plan->kernels)
      if (sameKernel(pk.kernel, a.kernel))
        for (const auto &p : pk.params)
          lifted.insert(p.candidates.begin(), p.candidates.end());
    json unlifted = json::array();
    for (const auto &c : ctx.candidates->candidates)
      if (sameKernel(c.kernel, a.kernel) && !lifted.count(c.id))
        unlifted.push_back(c.id);
    k["unlifted_candidates"] = unlifted;
    kernels.push_back(k);
    for (const auto &n : a.notes)
      notes.push_back(a.kernel + ": " + n);
  }
  summary["kernels"] = kernels;
  summary["notes"] = notes;
  return summary;
}

StopDecision gainStop(int round, const std::vector<KernelAnalysis> &previous,
                      const std::vector<KernelAnalysis> &current) {
  StopDecision d;
  std::string summary;
  bool anyGain = false, anyMeasured = false;
  for (const auto &c : current) {
    const KernelAnalysis *p = nullptr;
    for (const auto &q : previous)
      if (q.kernel == c.kernel)
        p = &q;
    if (!p)
      continue;
    auto gain = roundGain(*p, c);
    if (!gain)
      continue;
    anyMeasured = true;
    double pct = 100.0 * (*gain - 1.0);
    bool gained = *gain > 1.0 + c.threshold;
    anyGain |= gained;
    summary += (summary.empty() ? "" : "; ") + c.kernel + " " +
               (pct >= 0 ? "+" : "") + percent(pct) + " (noise threshold " +
               percent(100.0 * c.threshold) + ")";
  }
  if (!anyMeasured) {
    d.stop = true;
    d.reason = "round " + std::to_string(round) +
               " timed no shape the previous round timed";
    return d;
  }
  d.stop = !anyGain;
  d.reason = "round " + std::to_string(round) + " against round " +
             std::to_string(round - 1) + ": " + summary +
             (d.stop ? ": no gain beyond the noise, stopping"
                     : ": gained beyond the noise");
  return d;
}

json replanDecisionToJson(const ReplanDecision &decision) {
  json reasons = json::array();
  for (const auto &r : decision.reasons) {
    json j{{"action", r.action}, {"message", r.message}};
    if (!r.kernel.empty())
      j["kernel"] = r.kernel;
    if (!r.param.empty())
      j["param"] = r.param;
    reasons.push_back(j);
  }
  json j{{"ktune", "replan/1"},
         {"replanner", decision.replanner},
         {"changed", decision.changed},
         {"reasons", reasons},
         {"plan", planToJson(decision.plan)}};
  if (!decision.outcome.empty())
    j["outcome"] = decision.outcome;
  return j;
}

} // namespace ktune::run
