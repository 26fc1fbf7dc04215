//===- Replan.cpp - Re-planning's vocabulary, summary and stop rule -------===//
//
// The rules are in ReplanRules.cpp, the planner in ReplanPlanner.cpp.
//
//===----------------------------------------------------------------------===//

#include "ReplanInternal.h"

#include "ktune/Expr/Expr.h"
#include "ktune/Support/EnumNames.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <set>
#include <utility>

namespace ktune::run {

using nlohmann::json;

std::string_view replanActionName(ReplanAction action) {
  return nameOf(ReplanActionNames, action, "note");
}

std::optional<ReplanAction> parseReplanAction(std::string_view name) {
  return parseName(ReplanActionNames, name);
}

std::ostream &operator<<(std::ostream &os, ReplanAction action) {
  return os << replanActionName(action);
}

namespace replan {

std::string percent(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", v);
  return buf;
}

const KernelAnalysis *analysisFor(const std::vector<KernelAnalysis> &all,
                                  const std::string &planKernel) {
  for (const auto &a : all) {
    if (sameKernel(planKernel, a.kernel))
      return &a;
    for (const auto &k : a.planKernels)
      if (sameKernel(planKernel, k))
        return &a;
  }
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

} // namespace replan

using replan::percent;

std::optional<KindLimits> kindLimits(ParamKind kind,
                                     const DeviceLimits &device) {
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
  case ParamKind::GridSize:
    return KindLimits{1, 2147483647, false};
  case ParamKind::RowSplit:
    return KindLimits{1, 256, true}; // as a plan may name (PlanRules.cpp)
  case ParamKind::MinBlocks:
    return KindLimits{0, device.maxThreadsPerSM / device.warpSize, false};
  case ParamKind::FixedArg: // its values are the spec's shapes' (TunerSpace)
  case ParamKind::Other:
    break;
  }
  return std::nullopt;
}

static bool isPowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

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
      // Occupancy and grid fill, without the unknowns.
      json launch = json::object();
      for (auto [key, facts] : {std::pair{"default", &s.defaultLaunch},
                                std::pair{"best", &s.bestLaunch}})
        if (*facts) {
          json f = launchFactsToJson(**facts);
          for (auto it = f.begin(); it != f.end();)
            it = it->is_null() ? f.erase(it) : std::next(it);
          launch[key] = f;
        }
      if (!launch.empty()) {
        launch["latency_trivial"] = s.latencyTrivial;
        sj["launch"] = launch;
      }
      // Nsight Compute's counters (--profile).
      if (s.defaultCounters || s.bestCounters) {
        json counters = json::object();
        if (s.defaultCounters)
          counters["default"] = hardwareCountersToJson(*s.defaultCounters);
        if (s.bestCounters)
          counters["best"] = hardwareCountersToJson(*s.bestCounters);
        sj["counters"] = counters;
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
    json diagnoses = json::array();
    for (const auto &d : a.diagnoses)
      diagnoses.push_back(diagnosisToJson(d));
    k["diagnoses"] = diagnoses;
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
    json j{{"action", std::string(replanActionName(r.action))},
           {"message", r.message}};
    if (!r.kernel.empty())
      j["kernel"] = r.kernel;
    if (!r.param.empty())
      j["param"] = r.param;
    reasons.push_back(j);
  }
  json proposals = json::array();
  for (const auto &p : decision.proposals)
    proposals.push_back({{"kernel", p.kernel},
                         {"kinds", p.kinds},
                         {"diagnosis", p.diagnosis},
                         {"change", p.change},
                         {"available", p.available},
                         {"availability", p.availability}});
  json j{{"ktune", "replan/1"},         {"replanner", decision.replanner},
         {"changed", decision.changed}, {"reasons", reasons},
         {"proposals", proposals},      {"plan", planToJson(decision.plan)}};
  if (!decision.outcome.empty())
    j["outcome"] = decision.outcome;
  return j;
}

} // namespace ktune::run
