//===- Results.cpp - Per-shape bests, the general configuration, JSON -----===//
#include "ktune/Tune/Results.h"

#include "ktune/Support/Text.h"
#include "ktune/Support/Try.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace ktune {

using nlohmann::json;

std::string configText(const Configuration &config) {
  return config.empty() ? "(none)" : namedValues(config);
}

std::string shapeText(const Shape &shape) {
  return shape.empty() ? "(single shape)" : namedValues(shape);
}

//===----------------------------------------------------------------------===//
// The general configuration
//===----------------------------------------------------------------------===//

std::optional<GeneralResult> chooseGeneralConfiguration(
    const std::vector<Shape> &shapes, const Configuration &defaultConfig,
    const std::vector<Configuration> &candidates, const MeasureFn &measure) {
  std::vector<std::optional<double>> reference;
  for (const auto &shape : shapes)
    reference.push_back(measure(shape, defaultConfig));

  std::vector<Configuration> unique;
  for (const auto &c : candidates)
    if (std::find(unique.begin(), unique.end(), c) == unique.end())
      unique.push_back(c);
  if (std::find(unique.begin(), unique.end(), defaultConfig) == unique.end())
    unique.push_back(defaultConfig);

  std::optional<GeneralResult> best;
  for (const auto &candidate : unique) {
    GeneralResult r;
    r.config = candidate;
    double logSum = 0;
    size_t counted = 0;
    bool everywhere = true;
    for (size_t i = 0; i < shapes.size(); ++i) {
      std::optional<double> t = candidate == defaultConfig
                                    ? reference[i]
                                    : measure(shapes[i], candidate);
      if (!t || *t <= 0) {
        everywhere = false;
        break;
      }
      GeneralShapeTime st;
      st.medianUs = *t;
      // Where the default itself failed there is no reference: the shape
      // only has to measure, and adds no factor to the mean.
      if (reference[i] && *reference[i] > 0) {
        st.speedup = *reference[i] / *t;
        logSum += std::log(st.speedup);
        ++counted;
      }
      r.perShape.push_back(st);
    }
    if (!everywhere)
      continue;
    r.geomeanSpeedup = counted ? std::exp(logSum / counted) : 1.0;
    // Ties keep the earlier candidate (candidates come best-first).
    if (!best || r.geomeanSpeedup > best->geomeanSpeedup * (1 + 1e-12))
      best = std::move(r);
  }
  if (best)
    best->candidates = unique.size();
  return best;
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

namespace {

json timingToJson(const Timing &t) {
  return {{"median", t.medianUs}, {"iqr", t.iqrUs}, {"reps", t.reps}};
}

Expected<std::optional<Timing>> readTiming(const JsonReader &holder) {
  if (!holder.hasValue("time_us"))
    return std::optional<Timing>();
  JsonReader t = holder["time_us"];
  if (!t.isObject() || !t["median"].isNumber())
    return t.fail("expected {\"median\": us, \"iqr\": us, \"reps\": n}");
  Timing timing;
  timing.medianUs = *t["median"].number();
  KTUNE_TRY_ASSIGN(timing.iqrUs, t.optionalNumber("iqr", 0.0));
  KTUNE_TRY_ASSIGN(timing.reps, t.optionalInteger("reps", 0, 0, INT_MAX));
  return std::optional<Timing>(timing);
}

Expected<Configuration> readConfig(const JsonReader &holder) {
  KTUNE_TRY_ASSIGN(JsonReader config, holder.required("config"));
  KTUNE_TRY_ASSIGN(auto fields, config.integerFields());
  return Configuration(fields.begin(), fields.end());
}

Expected<ShapeResult> readShape(const JsonReader &js) {
  if (!js.isObject())
    return js.fail("expected an object");
  ShapeResult s;
  if (js.has("shape")) {
    KTUNE_TRY_ASSIGN(auto shape, js["shape"].integerFields());
    s.shape = Shape(shape.begin(), shape.end());
  }
  for (const char *which : {"default", "best"}) {
    KTUNE_TRY_ASSIGN(JsonReader w, js.required(which));
    KTUNE_TRY_ASSIGN(auto config, readConfig(w));
    KTUNE_TRY_ASSIGN(auto time, readTiming(w));
    if (std::string(which) == "default") {
      s.defaultConfig = std::move(config);
      s.defaultTime = time;
    } else {
      s.bestConfig = std::move(config);
      s.bestTime = time;
    }
  }
  KTUNE_TRY_ASSIGN(s.speedup, js.optionalNumber("speedup", 1.0));
  KTUNE_TRY_ASSIGN(s.retimed, js.optionalBool("retimed", false));
  KTUNE_TRY_ASSIGN(s.adoptedGeneral, js.optionalBool("adopted_general", false));
  if (js.hasValue("choice")) {
    JsonReader c = js["choice"];
    KTUNE_TRY_ASSIGN(s.margin, c.optionalNumber("margin", 0.0));
    KTUNE_TRY_ASSIGN(s.noiseThreshold, c.optionalNumber("noise_threshold", 0.0));
    KTUNE_TRY_ASSIGN(s.keptWithinNoise,
                     c.optionalBool("kept_within_noise", false));
  }
  KTUNE_TRY_ASSIGN(s.evaluations, js.optionalUnsigned("evaluations", 0));
  KTUNE_TRY_ASSIGN(s.stopReason, js.optionalString("stop_reason"));
  for (const auto &[name, n] : js["status_counts"].fields())
    if (auto status = parseStatus(name); status)
      if (auto count = n.unsignedInteger())
        s.statusCounts[*status] = *count;
  for (const JsonReader &jf : js["finalists"].elements()) {
    Measured m;
    KTUNE_TRY_ASSIGN(m.config, readConfig(jf));
    KTUNE_TRY_ASSIGN(std::string status, jf.optionalString("status", "ok"));
    auto parsed = parseStatus(status);
    if (!parsed)
      return jf.failAt("status", "unknown status");
    m.result.status = *parsed;
    KTUNE_TRY_ASSIGN(m.result.reason, jf.optionalString("reason"));
    KTUNE_TRY_ASSIGN(m.result.time, readTiming(jf));
    if (jf["resources"].isObject()) {
      KTUNE_TRY_ASSIGN(m.result.resources, resourcesFromJson(jf["resources"]));
    }
    s.finalists.push_back(std::move(m));
  }
  return s;
}

Expected<GeneralResult> readGeneral(const JsonReader &g) {
  GeneralResult gr;
  KTUNE_TRY_ASSIGN(gr.config, readConfig(g));
  KTUNE_TRY_ASSIGN(gr.geomeanSpeedup, g.optionalNumber("geomean_speedup", 1.0));
  KTUNE_TRY_ASSIGN(gr.candidates, g.optionalUnsigned("candidates", 0));
  for (const JsonReader &p : g["per_shape"].elements()) {
    if (!p.isObject())
      return p.fail("expected an object");
    GeneralShapeTime st;
    KTUNE_TRY_ASSIGN(st.speedup, p.optionalNumber("speedup", 1.0));
    KTUNE_TRY_ASSIGN(st.medianUs, p.optionalNumber("median_us", 0.0));
    gr.perShape.push_back(st);
  }
  return gr;
}

} // namespace

json resultsToJson(const TuneResults &r) {
  json j = {{"ktune", ResultsVersion},    {"kernel", r.kernel},
            {"template", r.templatePath}, {"template_sha256", r.templateSha256},
            {"device", r.device},         {"arch", r.arch},
            {"strategy", r.strategy},     {"seed", r.seed},
            {"budget", r.budget},         {"compile_only", r.compileOnly},
            {"params", r.params}};
  json shapes = json::array();
  for (const auto &s : r.shapes) {
    json js = {{"shape", s.shape}};
    js["default"] = {{"config", s.defaultConfig}};
    if (s.defaultTime)
      js["default"]["time_us"] = timingToJson(*s.defaultTime);
    js["best"] = {{"config", s.bestConfig}};
    if (s.bestTime)
      js["best"]["time_us"] = timingToJson(*s.bestTime);
    js["speedup"] = s.speedup;
    js["retimed"] = s.retimed;
    js["adopted_general"] = s.adoptedGeneral;
    if (s.retimed)
      js["choice"] = {{"margin", s.margin},
                      {"noise_threshold", s.noiseThreshold},
                      {"kept_within_noise", s.keptWithinNoise}};
    js["evaluations"] = s.evaluations;
    js["status_counts"] = s.statusCounts;
    js["stop_reason"] = s.stopReason;
    json finalists = json::array();
    for (const auto &m : s.finalists) {
      json jf = {{"config", m.config}, {"status", statusName(m.result.status)}};
      if (!m.result.reason.empty())
        jf["reason"] = m.result.reason;
      if (m.result.time)
        jf["time_us"] = timingToJson(*m.result.time);
      jf["resources"] = resourcesToJson(m.result.resources);
      finalists.push_back(std::move(jf));
    }
    js["finalists"] = std::move(finalists);
    shapes.push_back(std::move(js));
  }
  j["shapes"] = std::move(shapes);
  if (r.general) {
    json per = json::array();
    for (const auto &p : r.general->perShape)
      per.push_back({{"speedup", p.speedup}, {"median_us", p.medianUs}});
    j["general"] = {{"config", r.general->config},
                    {"geomean_speedup", r.general->geomeanSpeedup},
                    {"candidates", r.general->candidates},
                    {"per_shape", std::move(per)}};
  } else {
    j["general"] = nullptr;
  }
  if (!r.compiler.backend.empty())
    j["compiler"] = compilerReportToJson(r.compiler);
  json failures = json::object();
  for (const auto &[status, f] : r.failures)
    failures[std::string(statusName(status))] = {
        {"count", f.count},
        {"commonest_reason", f.commonestReason},
        {"commonest_count", f.commonestCount}};
  j["failures"] = std::move(failures);
  if (!r.notes.empty())
    j["notes"] = r.notes;
  return j;
}

Expected<TuneResults> resultsFromJson(const json &json) {
  JsonReader j(json);
  KTUNE_TRY(j.expectVersion("a results file", ResultsVersion));
  TuneResults r;
  KTUNE_TRY_ASSIGN(r.kernel, j["kernel"].string());
  KTUNE_TRY_ASSIGN(r.device, j["device"].string());
  KTUNE_TRY_ASSIGN(r.arch, j["arch"].string());
  KTUNE_TRY_ASSIGN(r.templatePath, j.optionalString("template"));
  KTUNE_TRY_ASSIGN(r.templateSha256, j.optionalString("template_sha256"));
  KTUNE_TRY_ASSIGN(r.strategy, j.optionalString("strategy"));
  KTUNE_TRY_ASSIGN(r.seed, j.optionalUnsigned("seed", 0));
  KTUNE_TRY_ASSIGN(r.budget, j.optionalUnsigned("budget", 0));
  KTUNE_TRY_ASSIGN(r.compileOnly, j.optionalBool("compile_only", false));
  for (const JsonReader &p : j["params"].elements())
    if (p.isString())
      r.params.push_back(*p.string());
  KTUNE_TRY_ASSIGN(r.shapes, j["shapes"].readArray(readShape));
  if (j.hasValue("general")) {
    KTUNE_TRY_ASSIGN(r.general, readGeneral(j["general"]));
  }
  if (j.hasValue("compiler")) {
    KTUNE_TRY_ASSIGN(r.compiler, compilerReportFromJson(j["compiler"]));
  }
  for (const auto &[name, f] : j["failures"].fields()) {
    auto status = parseStatus(name);
    if (!status)
      return f.fail("unknown status '" + name + "'");
    FailureSummary &out = r.failures[*status];
    KTUNE_TRY_ASSIGN(out.count, f.optionalUnsigned("count", 0));
    KTUNE_TRY_ASSIGN(out.commonestReason, f.optionalString("commonest_reason"));
    KTUNE_TRY_ASSIGN(out.commonestCount,
                     f.optionalUnsigned("commonest_count", 0));
  }
  return r;
}

//===----------------------------------------------------------------------===//
// The final table
//===----------------------------------------------------------------------===//

namespace {

std::string timeCell(const std::optional<Timing> &t) {
  if (!t)
    return "-";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.2f (%.2f)", t->medianUs, t->iqrUs);
  return buf;
}

} // namespace

std::string formatResultsTable(const TuneResults &r) {
  std::ostringstream out;
  out << r.kernel << " on " << r.device << " (" << r.arch << ")";
  if (!r.strategy.empty())
    out << ", strategy " << r.strategy << ", budget " << r.budget
        << " per shape, seed " << r.seed;
  out << "\n";
  if (!r.compiler.backend.empty())
    out << "compiled with " << r.compiler.backend
        << (r.compiler.reason.empty() ? "" : " (" + r.compiler.reason + ")")
        << "\n";
  if (r.compileOnly) {
    size_t shapeWidth = 28;
    for (const auto &s : r.shapes)
      shapeWidth = std::max(shapeWidth, shapeText(s.shape).size() + 2);
    out << padRight("shape", shapeWidth) << padRight("evaluations", 13)
        << "status counts\n";
    for (const auto &s : r.shapes) {
      std::string counts;
      for (const auto &[status, n] : s.statusCounts)
        counts += (counts.empty() ? "" : ", ") +
                  std::string(statusName(status)) + " " + std::to_string(n);
      out << padRight(shapeText(s.shape), shapeWidth)
          << padRight(std::to_string(s.evaluations), 13) << counts << "\n";
    }
    if (r.shapes.empty())
      return out.str();
    // Compilation does not depend on the shape (pruning may): one table.
    const ShapeResult &first = r.shapes.front();
    out << "\nresources";
    if (r.shapes.size() > 1)
      out << " at " << shapeText(first.shape);
    out << ":\n";
    size_t width = 13;
    for (const auto &m : first.finalists)
      width = std::max(width, configText(m.config).size() + 2);
    out << padRight("configuration", width) << padRight("status", 15)
        << padRight("regs", 6) << padRight("spills", 8) << padRight("smem", 8)
        << padRight("threads", 9) << padRight("blocks/SM", 11) << "reason\n";
    auto num = [](int v, bool known) {
      return known ? std::to_string(v) : std::string("-");
    };
    const size_t maxRows = 200;
    for (size_t i = 0; i < first.finalists.size() && i < maxRows; ++i) {
      const Measured &m = first.finalists[i];
      const Resources &res = m.result.resources;
      std::string reason =
          m.result.reason.substr(0, m.result.reason.find('\n'));
      if (reason.size() > 80)
        reason = reason.substr(0, 77) + "...";
      out << padRight(configText(m.config), width)
          << padRight(std::string(statusName(m.result.status)), 15)
          << padRight(num(res.registers, res.registers >= 0), 6)
          << padRight(num(res.spillStores + res.spillLoads, res.registers >= 0),
                      8)
          << padRight(
                 num(res.smemStatic + res.smemDynamic, res.smemStatic >= 0), 8)
          << padRight(num(res.threadsPerBlock, res.threadsPerBlock > 0), 9)
          << padRight(num(res.blocksPerSM, res.blocksPerSM >= 0), 11) << reason
          << "\n";
    }
    if (first.finalists.size() > maxRows)
      out << "... " << first.finalists.size() - maxRows
          << " more in the results file\n";
    out << failureWarning(r);
    for (const auto &n : r.notes)
      out << "note: " << n << "\n";
    return out.str();
  }
  size_t shapeWidth = 5;
  for (const auto &s : r.shapes)
    shapeWidth = std::max(shapeWidth, shapeText(s.shape).size());
  shapeWidth += 2;
  out << padRight("shape", shapeWidth) << padRight("default us (IQR)", 20)
      << padRight("best us (IQR)", 20) << padRight("speedup", 9)
      << padRight("evals", 7) << "best configuration\n";
  for (const auto &s : r.shapes) {
    char speed[32];
    std::snprintf(speed, sizeof(speed), "%.3fx", s.speedup);
    out << padRight(shapeText(s.shape), shapeWidth)
        << padRight(timeCell(s.defaultTime), 20)
        << padRight(timeCell(s.bestTime), 20) << padRight(speed, 9)
        << padRight(std::to_string(s.evaluations), 7)
        << (s.bestConfig == s.defaultConfig ? "(default) " : "")
        << configText(s.bestConfig) << (s.retimed ? "" : "  [search times]")
        << (s.adoptedGeneral ? "  [general]" : "")
        << (s.keptWithinNoise ? "  [fastest +" +
                                    formatDouble("%.1f", 100 * s.margin) +
                                    "% within noise " +
                                    formatDouble("%.1f", 100 * s.noiseThreshold) +
                                    "%]"
                              : "")
        << "\n";
  }
  if (r.general) {
    char speed[32];
    std::snprintf(speed, sizeof(speed), "%.3fx", r.general->geomeanSpeedup);
    out << "general configuration: " << configText(r.general->config)
        << "  (geometric-mean speedup " << speed << " over " << r.shapes.size()
        << " shape" << (r.shapes.size() == 1 ? "" : "s") << ", "
        << r.general->candidates << " candidates)\n";
  } else if (!r.shapes.empty()) {
    out << "general configuration: none measured on every shape\n";
  }
  out << failureWarning(r);
  for (const auto &n : r.notes)
    out << "note: " << n << "\n";
  return out.str();
}

} // namespace ktune
