//===- Analysis.cpp - What a tuning round found ---------------------------===//
#include "ktune/Run/Analysis.h"

#include "ktune/Expr/Expr.h"
#include "ktune/Support/EnumNames.h"
#include "ktune/Support/Statistics.h"
#include "ktune/Support/Try.h"

#include <algorithm>
#include <cmath>

namespace ktune::run {

using nlohmann::json;

std::optional<double> knownCopyBandwidthTBps(const std::string &device) {
  // Measured: a device-to-device copy on the H200 (read + write bytes over
  // time), the figure the torch baselines use as their roofline.
  if (device.find("H200") != std::string::npos)
    return 4.25;
  // H100 SXM (HBM3): an elementwise copy kernel; the memcpy path reaches only
  // 2.44 TB/s there.
  if (device.find("H100 80GB HBM3") != std::string::npos)
    return 3.01;
  return std::nullopt;
}

Expected<ShapeBytes> bytesAtShape(const Spec &spec, const Shape &shape) {
  std::map<std::string, expr::Value> env;
  for (const auto &[name, value] : shape)
    env[name] = expr::Value::ofInt(value);
  ShapeBytes out;
  if (!spec.bytes.empty()) {
    auto e = expr::Expr::parse(spec.bytes);
    if (!e)
      return makeError("bytes: " + e.error().message, "bytes");
    auto v = e->evaluate(env);
    if (!v)
      return makeError(
          "bytes at " + shapeText(shape) + ": " + v.error().message, "bytes");
    out.bytes = v->asDouble();
    out.fromExpression = true;
    return out;
  }
  for (const auto &arg : spec.args) {
    const auto *buffer = std::get_if<BufferArg>(&arg.arg);
    if (!buffer)
      continue;
    double count = 1;
    for (const auto &dim : buffer->shape) {
      auto e = expr::Expr::parse(dim);
      if (!e)
        return makeError(e.error().message, "args." + arg.name + ".shape");
      auto v = e->evaluate(env);
      if (!v)
        return makeError(v.error().message, "args." + arg.name + ".shape");
      count *= v->asDouble();
    }
    double bytes = count * static_cast<double>(dtypeSize(buffer->dtype));
    out.bytes += buffer->role == Role::InOut ? 2 * bytes : bytes;
  }
  return out;
}

std::string_view placementName(Placement p) {
  return nameOf(PlacementNames, p, "interior");
}

namespace {

std::optional<double> geomean(const std::vector<double> &v) {
  if (v.empty())
    return std::nullopt;
  double sum = 0;
  for (double x : v)
    sum += std::log(x);
  return std::exp(sum / static_cast<double>(v.size()));
}

bool isBudgeted(JournalPhase phase) {
  return phase == JournalPhase::Default || phase == JournalPhase::Search;
}

ParamPlacement placementOf(const std::string &param, int64_t value,
                           const Domain &domain) {
  ParamPlacement p;
  p.param = param;
  p.value = value;
  auto values = domain.enumerate();
  auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  p.domainMin = values.empty() ? value : *lo;
  p.domainMax = values.empty() ? value : *hi;
  if (values.size() <= 1)
    p.placement = Placement::Only;
  else if (value <= p.domainMin)
    p.placement = Placement::LowEdge;
  else if (value >= p.domainMax)
    p.placement = Placement::HighEdge;
  else
    p.placement = Placement::Interior;
  return p;
}

json configJson(const Configuration &c) {
  json j = json::object();
  for (const auto &[k, v] : c)
    j[k] = v;
  return j;
}

json optionalNumber(const std::optional<double> &v) {
  return v ? json(*v) : json(nullptr);
}

} // namespace

Expected<KernelAnalysis> analyzeKernel(const KernelRoundInput &in,
                                       const AnalysisOptions &options) {
  const TuneResults &results = *in.results;
  KernelAnalysis out;
  out.kernel = results.kernel;
  out.compileOnly = results.compileOnly;
  out.general = results.general;
  for (const auto &p : in.space->params) {
    out.params.push_back(p.name);
    out.domains[p.name] = p.domain;
  }

  // The journal's budgeted and general evaluations of this run, per shape.
  std::map<Shape, std::vector<const JournalEntry *>> byShape;
  if (in.journal)
    for (const auto &e : *in.journal)
      if (journaledBy(e.key, results) && e.phase != JournalPhase::Retime)
        byShape[e.key.shape].push_back(&e);

  std::vector<double> noises, bests, speedups;
  double peak = in.roofline.tbps.value_or(0);
  for (const auto &sr : results.shapes) {
    ShapeAnalysis sa;
    sa.shape = sr.shape;
    sa.defaultConfig = sr.defaultConfig;
    sa.bestConfig = sr.bestConfig;
    if (sr.defaultTime)
      sa.defaultUs = sr.defaultTime->medianUs;
    if (sr.bestTime) {
      sa.bestUs = sr.bestTime->medianUs;
      sa.bestIqrUs = sr.bestTime->iqrUs;
    }
    sa.speedup = sr.speedup;
    if (sr.retimed) {
      sa.margin = sr.margin;
      sa.noiseThreshold = sr.noiseThreshold;
      sa.keptWithinNoise = sr.keptWithinNoise;
    }
    sa.evaluated = sr.evaluations;
    sa.statusCounts = sr.statusCounts;
    for (const auto &[status, n] : sr.statusCounts) {
      out.statusCounts[status] += n;
      if (status == EvalStatus::Ok)
        sa.ok = n;
    }
    out.evaluated += sr.evaluations;
    for (const auto &f : sr.finalists)
      if (f.config == sr.bestConfig) {
        sa.bestResources = f.result.resources;
        break;
      }

    // Measurements: the latest ok time of each configuration.
    std::map<Configuration, const JournalEntry *> latest;
    std::optional<double> best;
    for (const JournalEntry *e : byShape[sr.shape]) {
      if (isBudgeted(e->phase)) {
        if (e->result.status == EvalStatus::Ok && e->result.time)
          best = std::min(best.value_or(e->result.time->medianUs),
                          e->result.time->medianUs);
        sa.bestSoFarUs.push_back(best);
      }
      if (e->result.status == EvalStatus::Ok && e->result.time)
        latest[e->key.config] = e;
      if (sa.bestResources.registers < 0 && e->key.config == sr.bestConfig)
        sa.bestResources = e->result.resources;
      if (sa.defaultResources.registers < 0 &&
          e->key.config == sr.defaultConfig)
        sa.defaultResources = e->result.resources;
    }
    sa.latencyTrivial = sa.defaultUs && *sa.defaultUs < options.latencyFloorUs;
    std::vector<double> times, relIqr;
    for (const auto &[config, e] : latest) {
      times.push_back(e->result.time->medianUs);
      if (e->result.time->medianUs > 0)
        relIqr.push_back(e->result.time->iqrUs / e->result.time->medianUs);
    }
    if (!times.empty()) {
      std::sort(times.begin(), times.end());
      sa.fastestUs = times.front();
      sa.slowestUs = times.back();
      sa.medianUs = median(times);
    }
    sa.noise = median(relIqr);
    if (!relIqr.empty())
      noises.push_back(sa.noise);

    // Roofline.
    KTUNE_TRY_ASSIGN(ShapeBytes bytes, bytesAtShape(*in.spec, sr.shape));
    sa.bytes = bytes.bytes;
    sa.bytesFromExpression = bytes.fromExpression;
    if (peak > 0 && bytes.bytes > 0) {
      sa.idealUs = bytes.bytes / (peak * 1e12) * 1e6;
      sa.bandwidthRelevant = *sa.idealUs >= options.minIdealUs;
      if (sa.bestUs && *sa.bestUs > 0) {
        sa.bestTBps = bytes.bytes / (*sa.bestUs * 1e-6) / 1e12;
        sa.rooflinePct = 100.0 * *sa.bestTBps / peak;
      }
      if (sa.defaultUs && *sa.defaultUs > 0)
        sa.defaultRooflinePct =
            100.0 * (bytes.bytes / (*sa.defaultUs * 1e-6) / 1e12) / peak;
    } else if (sa.bestUs && *sa.bestUs > 0 && bytes.bytes > 0) {
      sa.bestTBps = bytes.bytes / (*sa.bestUs * 1e-6) / 1e12;
    }

    // Placement and influence of every parameter.
    if (!results.compileOnly)
      for (const auto &p : in.space->params) {
        auto it = sr.bestConfig.find(p.name);
        if (it != sr.bestConfig.end())
          sa.placements.push_back(placementOf(p.name, it->second, p.domain));
        ParamInfluence inf;
        inf.param = p.name;
        for (const auto &[config, e] : latest) {
          auto v = config.find(p.name);
          if (v == config.end())
            continue;
          double t = e->result.time->medianUs;
          auto [slot, inserted] = inf.bestUsByValue.emplace(v->second, t);
          if (!inserted)
            slot->second = std::min(slot->second, t);
        }
        if (inf.measured()) {
          auto [lo, hi] = std::minmax_element(
              inf.bestUsByValue.begin(), inf.bestUsByValue.end(),
              [](const auto &a, const auto &b) { return a.second < b.second; });
          inf.spreadPct = 100.0 * (hi->second - lo->second) / lo->second;
        }
        sa.influences.push_back(std::move(inf));
      }

    if (sa.bestUs && sa.defaultUs) {
      bests.push_back(*sa.bestUs);
      speedups.push_back(*sa.defaultUs / *sa.bestUs);
    }
    out.shapes.push_back(std::move(sa));
  }

  out.noise = median(noises);
  out.threshold = std::max(out.noise, options.minEffect);
  out.geomeanBestUs = geomean(bests);
  out.geomeanSpeedup = geomean(speedups).value_or(1.0);

  // Roofline over the shapes where bandwidth matters.
  for (const auto &s : out.shapes)
    out.anyBandwidthRelevant |= s.bandwidthRelevant;
  for (const auto &s : out.shapes)
    if (s.rooflinePct && (s.bandwidthRelevant || !out.anyBandwidthRelevant))
      out.rooflinePct = std::max(out.rooflinePct.value_or(0), *s.rooflinePct);
  out.farFromRoofline = out.anyBandwidthRelevant && out.rooflinePct &&
                        *out.rooflinePct < options.farBelowPct;
  if (!results.compileOnly && !in.roofline.tbps)
    out.notes.push_back("the roofline bandwidth of " + results.device +
                        " is not known: give --roofline-tbps (a measured "
                        "device-to-device copy bandwidth) to compare with it");
  else if (!results.compileOnly && !out.anyBandwidthRelevant)
    out.notes.push_back("every shape is latency-bound (it would take less "
                        "than " +
                        std::to_string(static_cast<int>(options.minIdealUs)) +
                        " us at the roofline): the roofline rule does not "
                        "apply");

  // Edges and influence over all shapes.
  if (!results.compileOnly) {
    std::map<std::pair<std::string, std::string>, EdgeHit> edges;
    for (const auto &s : out.shapes) {
      double shapeThreshold = std::max(s.noise, options.minEffect);
      for (const auto &p : s.placements) {
        if (p.placement != Placement::LowEdge &&
            p.placement != Placement::HighEdge)
          continue;
        std::string edge = p.placement == Placement::LowEdge ? "min" : "max";
        EdgeHit &hit = edges[{p.param, edge}];
        hit.param = p.param;
        hit.edge = edge;
        hit.value = p.value;
        ++hit.shapes;
        auto inf = std::find_if(
            s.influences.begin(), s.influences.end(),
            [&](const ParamInfluence &i) { return i.param == p.param; });
        if (inf == s.influences.end() || !inf->measured() ||
            inf->spreadPct / 100.0 > shapeThreshold)
          ++hit.mattered;
      }
    }
    for (const auto &p : out.params) // domain order, min before max
      for (const char *edge : {"min", "max"})
        if (auto it = edges.find({p, edge}); it != edges.end())
          out.edges.push_back(it->second);

    for (const auto &p : out.params) {
      InfluenceSummary sum;
      sum.param = p;
      sum.noisePct = 100.0 * out.threshold;
      bool aboveSomewhere = false;
      for (const auto &s : out.shapes) {
        double shapeThreshold = std::max(s.noise, options.minEffect);
        for (const auto &inf : s.influences)
          if (inf.param == p && inf.measured()) {
            ++sum.shapesMeasured;
            sum.maxSpreadPct = std::max(sum.maxSpreadPct, inf.spreadPct);
            aboveSomewhere |= inf.spreadPct / 100.0 > shapeThreshold;
          }
      }
      sum.insensitive = sum.shapesMeasured > 0 && !aboveSomewhere;
      out.influence.push_back(sum);
    }
    std::stable_sort(out.influence.begin(), out.influence.end(),
                     [](const InfluenceSummary &a, const InfluenceSummary &b) {
                       return a.maxSpreadPct > b.maxSpreadPct;
                     });
  }
  if (in.profiles)
    for (auto &s : out.shapes) {
      s.profiled = true;
      auto it = std::find_if(
          in.profiles->begin(), in.profiles->end(),
          [&](const ShapeProfile &p) { return p.shape == s.shape; });
      if (it == in.profiles->end()) {
        s.countersError = "not profiled";
        continue;
      }
      s.defaultCounters = it->defaultCounters;
      s.bestCounters = it->bestCounters;
      s.countersError = it->error;
    }
  analyzeLaunches(in, options, out);
  return out;
}

json shapeAnalysisToJson(const ShapeAnalysis &s) {
  json j{{"shape", s.shape},
         {"default",
          {{"config", configJson(s.defaultConfig)},
           {"time_us", optionalNumber(s.defaultUs)}}},
         {"best",
          {{"config", configJson(s.bestConfig)},
           {"time_us", optionalNumber(s.bestUs)},
           {"iqr_us", s.bestIqrUs},
           {"resources",
            resourcesToJson(s.bestResources, {.zeroSmemDynamic = true})}}},
         {"launch",
          {{"default", s.defaultLaunch ? launchFactsToJson(*s.defaultLaunch)
                                       : json(nullptr)},
           {"best",
            s.bestLaunch ? launchFactsToJson(*s.bestLaunch) : json(nullptr)},
           {"latency_trivial", s.latencyTrivial}}},
         {"speedup", s.speedup},
         {"choice",
          {{"margin", optionalNumber(s.margin)},
           {"noise_threshold", optionalNumber(s.noiseThreshold)},
           {"kept_within_noise", s.keptWithinNoise}}},
         {"spread_us",
          {{"fastest", optionalNumber(s.fastestUs)},
           {"median", optionalNumber(s.medianUs)},
           {"slowest", optionalNumber(s.slowestUs)}}},
         {"noise_pct", 100.0 * s.noise},
         {"evaluated", s.evaluated},
         {"statuses", s.statusCounts}};
  if (s.profiled) {
    auto counters = [](const std::optional<HardwareCounters> &c) {
      return c ? hardwareCountersToJson(*c) : json(nullptr);
    };
    j["counters"] = {{"default", counters(s.defaultCounters)},
                     {"best", counters(s.bestCounters)}};
    if (!s.countersError.empty())
      j["counters"]["error"] = s.countersError;
  }
  json roof = json::object();
  roof["bytes"] = optionalNumber(s.bytes);
  roof["bytes_from"] = s.bytesFromExpression ? "spec bytes" : "buffer sizes";
  roof["ideal_us"] = optionalNumber(s.idealUs);
  roof["best_tbps"] = optionalNumber(s.bestTBps);
  roof["best_pct"] = optionalNumber(s.rooflinePct);
  roof["default_pct"] = optionalNumber(s.defaultRooflinePct);
  roof["bandwidth_relevant"] = s.bandwidthRelevant;
  j["roofline"] = roof;
  json placements = json::array();
  for (const auto &p : s.placements)
    placements.push_back({{"param", p.param},
                          {"value", p.value},
                          {"where", placementName(p.placement)},
                          {"domain_min", p.domainMin},
                          {"domain_max", p.domainMax}});
  j["placements"] = placements;
  json influences = json::array();
  for (const auto &inf : s.influences) {
    json by = json::object();
    for (const auto &[v, t] : inf.bestUsByValue)
      by[std::to_string(v)] = t;
    influences.push_back({{"param", inf.param},
                          {"spread_pct", inf.spreadPct},
                          {"best_us_by_value", by}});
  }
  j["influence"] = influences;
  json trace = json::array();
  for (const auto &t : s.bestSoFarUs)
    trace.push_back(optionalNumber(t));
  j["best_so_far_us"] = trace;
  return j;
}

json kernelAnalysisToJson(const KernelAnalysis &a) {
  json j{{"kernel", a.kernel},
         {"compile_only", a.compileOnly},
         {"params", a.params},
         {"evaluated", a.evaluated},
         {"statuses", a.statusCounts},
         {"noise_pct", 100.0 * a.noise},
         {"threshold_pct", 100.0 * a.threshold},
         {"geomean_best_us", optionalNumber(a.geomeanBestUs)},
         {"geomean_speedup", a.geomeanSpeedup},
         {"roofline_pct", optionalNumber(a.rooflinePct)},
         {"far_from_roofline", a.farFromRoofline},
         {"any_bandwidth_relevant", a.anyBandwidthRelevant},
         {"notes", a.notes}};
  json domains = json::object();
  for (const auto &[name, d] : a.domains) {
    json holder = json::object();
    domainToJson(d, holder);
    domains[name] = holder;
  }
  j["domains"] = domains;
  json edges = json::array();
  for (const auto &e : a.edges)
    edges.push_back({{"param", e.param},
                     {"edge", e.edge},
                     {"value", e.value},
                     {"shapes", e.shapes},
                     {"mattered", e.mattered}});
  j["edges_hit"] = edges;
  json influence = json::array();
  for (const auto &i : a.influence)
    influence.push_back({{"param", i.param},
                         {"max_spread_pct", i.maxSpreadPct},
                         {"threshold_pct", i.noisePct},
                         {"shapes_measured", i.shapesMeasured},
                         {"insensitive", i.insensitive}});
  j["influence"] = influence;
  json diagnoses = json::array();
  for (const auto &d : a.diagnoses)
    diagnoses.push_back(diagnosisToJson(d));
  j["device_limits"] = a.limitsName.empty() ? json(nullptr)
                                            : json{{"name", a.limitsName},
                                                   {"sm_count", a.smCount}};
  j["diagnoses"] = diagnoses;
  if (a.general)
    j["general"] = {{"config", configJson(a.general->config)},
                    {"geomean_speedup", a.general->geomeanSpeedup}};
  else
    j["general"] = nullptr;
  json shapes = json::array();
  for (const auto &s : a.shapes)
    shapes.push_back(shapeAnalysisToJson(s));
  j["shapes"] = shapes;
  return j;
}

std::optional<double> roundGain(const KernelAnalysis &previous,
                                const KernelAnalysis &current) {
  std::vector<double> ratios;
  for (const auto &c : current.shapes) {
    if (!c.bestUs || *c.bestUs <= 0)
      continue;
    for (const auto &p : previous.shapes)
      if (p.shape == c.shape && p.bestUs && *p.bestUs > 0)
        ratios.push_back(*p.bestUs / *c.bestUs);
  }
  return geomean(ratios);
}

} // namespace ktune::run
