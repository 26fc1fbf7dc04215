//===- Results.cpp - Per-shape bests, the general configuration, JSON -----===//
#include "ktune/Tune/Results.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace ktune {

using nlohmann::json;

std::string configText(const Configuration &config) {
  std::string out;
  for (const auto &[name, value] : config)
    out += (out.empty() ? "" : " ") + name + "=" + std::to_string(value);
  return out.empty() ? "(none)" : out;
}

std::string shapeText(const Shape &shape) {
  std::string out;
  for (const auto &[name, value] : shape)
    out += (out.empty() ? "" : " ") + name + "=" + std::to_string(value);
  return out.empty() ? "(single shape)" : out;
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

json resourcesToJson(const Resources &r) {
  json j = json::object();
  if (r.registers >= 0)
    j["registers"] = r.registers;
  j["spill_stores"] = r.spillStores;
  j["spill_loads"] = r.spillLoads;
  if (r.smemStatic >= 0)
    j["smem_static"] = r.smemStatic;
  if (r.smemDynamic)
    j["smem_dynamic"] = r.smemDynamic;
  if (r.threadsPerBlock)
    j["threads_per_block"] = r.threadsPerBlock;
  if (r.blocksPerSM >= 0)
    j["blocks_per_sm"] = r.blocksPerSM;
  return j;
}

std::string join(const std::string &where, const std::string &key) {
  return where.empty() ? key : where + "." + key;
}

Expected<std::map<std::string, int64_t>> readIntMap(const json &j,
                                                    const std::string &where) {
  if (!j.is_object())
    return makeError("expected an object of integers", where);
  std::map<std::string, int64_t> out;
  for (const auto &[name, value] : j.items()) {
    if (!value.is_number_integer())
      return makeError("expected an integer", join(where, name));
    out[name] = value.get<int64_t>();
  }
  return out;
}

Expected<std::optional<Timing>> readTiming(const json &holder,
                                           const std::string &where) {
  if (!holder.contains("time_us") || holder["time_us"].is_null())
    return std::optional<Timing>();
  const json &t = holder["time_us"];
  std::string at = join(where, "time_us");
  if (!t.is_object() || !t.contains("median") || !t["median"].is_number())
    return makeError("expected {\"median\": us, \"iqr\": us, \"reps\": n}", at);
  Timing timing;
  timing.medianUs = t["median"].get<double>();
  timing.iqrUs = t.value("iqr", 0.0);
  timing.reps = t.value("reps", 0);
  return std::optional<Timing>(timing);
}

Expected<Configuration> readConfig(const json &holder,
                                   const std::string &where) {
  if (!holder.is_object() || !holder.contains("config"))
    return makeError("missing required field", join(where, "config"));
  return readIntMap(holder["config"], join(where, "config"));
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
  return j;
}

Expected<TuneResults> resultsFromJson(const json &j) {
  if (!j.is_object())
    return makeError("a results file is a JSON object", "$");
  if (j.value("ktune", "") != ResultsVersion)
    return makeError("unsupported results version \"" + j.value("ktune", "") +
                         "\" (this ktune reads \"" + ResultsVersion + "\")",
                     "ktune");
  TuneResults r;
  for (const char *key : {"kernel", "device", "arch"})
    if (!j.contains(key) || !j[key].is_string())
      return makeError("expected a string", key);
  r.kernel = j["kernel"];
  r.device = j["device"];
  r.arch = j["arch"];
  r.templatePath = j.value("template", "");
  r.templateSha256 = j.value("template_sha256", "");
  r.strategy = j.value("strategy", "");
  r.seed = j.value("seed", uint64_t{0});
  r.budget = j.value("budget", uint64_t{0});
  r.compileOnly = j.value("compile_only", false);
  if (j.contains("params") && j["params"].is_array())
    for (const auto &p : j["params"])
      if (p.is_string())
        r.params.push_back(p.get<std::string>());
  if (!j.contains("shapes") || !j["shapes"].is_array())
    return makeError("expected an array", "shapes");
  for (size_t i = 0; i < j["shapes"].size(); ++i) {
    const json &js = j["shapes"][i];
    std::string at = "shapes[" + std::to_string(i) + "]";
    if (!js.is_object())
      return makeError("expected an object", at);
    ShapeResult s;
    auto shape =
        readIntMap(js.value("shape", json::object()), join(at, "shape"));
    if (!shape)
      return std::unexpected(shape.error());
    s.shape = std::move(*shape);
    for (const char *which : {"default", "best"}) {
      std::string w = join(at, which);
      if (!js.contains(which))
        return makeError("missing required field", w);
      auto config = readConfig(js[which], w);
      if (!config)
        return std::unexpected(config.error());
      auto time = readTiming(js[which], w);
      if (!time)
        return std::unexpected(time.error());
      if (std::string(which) == "default") {
        s.defaultConfig = std::move(*config);
        s.defaultTime = *time;
      } else {
        s.bestConfig = std::move(*config);
        s.bestTime = *time;
      }
    }
    s.speedup = js.value("speedup", 1.0);
    s.retimed = js.value("retimed", false);
    s.adoptedGeneral = js.value("adopted_general", false);
    s.evaluations = js.value("evaluations", uint64_t{0});
    s.stopReason = js.value("stop_reason", "");
    if (js.contains("status_counts") && js["status_counts"].is_object())
      for (const auto &[name, n] : js["status_counts"].items())
        if (auto status = parseStatus(name); status && n.is_number_unsigned())
          s.statusCounts[*status] = n.get<uint64_t>();
    if (js.contains("finalists") && js["finalists"].is_array())
      for (size_t f = 0; f < js["finalists"].size(); ++f) {
        const json &jf = js["finalists"][f];
        std::string fat = join(at, "finalists[" + std::to_string(f) + "]");
        Measured m;
        auto config = readConfig(jf, fat);
        if (!config)
          return std::unexpected(config.error());
        m.config = std::move(*config);
        auto status = parseStatus(jf.value("status", "ok"));
        if (!status)
          return makeError("unknown status", join(fat, "status"));
        m.result.status = *status;
        m.result.reason = jf.value("reason", "");
        auto time = readTiming(jf, fat);
        if (!time)
          return std::unexpected(time.error());
        m.result.time = *time;
        if (jf.contains("resources") && jf["resources"].is_object()) {
          const json &r = jf["resources"];
          Resources &res = m.result.resources;
          res.registers = r.value("registers", -1);
          res.spillStores = r.value("spill_stores", 0);
          res.spillLoads = r.value("spill_loads", 0);
          res.smemStatic = r.value("smem_static", -1);
          res.smemDynamic = r.value("smem_dynamic", 0);
          res.threadsPerBlock = r.value("threads_per_block", 0);
          res.blocksPerSM = r.value("blocks_per_sm", -1);
        }
        s.finalists.push_back(std::move(m));
      }
    r.shapes.push_back(std::move(s));
  }
  if (j.contains("general") && !j["general"].is_null()) {
    const json &g = j["general"];
    GeneralResult gr;
    auto config = readConfig(g, "general");
    if (!config)
      return std::unexpected(config.error());
    gr.config = std::move(*config);
    gr.geomeanSpeedup = g.value("geomean_speedup", 1.0);
    gr.candidates = g.value("candidates", size_t{0});
    if (g.contains("per_shape") && g["per_shape"].is_array())
      for (const auto &p : g["per_shape"])
        gr.perShape.push_back(
            {p.value("speedup", 1.0), p.value("median_us", 0.0)});
    r.general = std::move(gr);
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

std::string pad(std::string s, size_t width) {
  if (s.size() < width)
    s.append(width - s.size(), ' ');
  return s;
}

} // namespace

std::string formatResultsTable(const TuneResults &r) {
  std::ostringstream out;
  out << r.kernel << " on " << r.device << " (" << r.arch << ")";
  if (!r.strategy.empty())
    out << ", strategy " << r.strategy << ", budget " << r.budget
        << " per shape, seed " << r.seed;
  out << "\n";
  if (r.compileOnly) {
    out << pad("shape", 28) << pad("evaluations", 13) << "status counts\n";
    for (const auto &s : r.shapes) {
      std::string counts;
      for (const auto &[status, n] : s.statusCounts)
        counts += (counts.empty() ? "" : ", ") +
                  std::string(statusName(status)) + " " + std::to_string(n);
      out << pad(shapeText(s.shape), 28)
          << pad(std::to_string(s.evaluations), 13) << counts << "\n";
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
    out << pad("configuration", width) << pad("status", 15) << pad("regs", 6)
        << pad("spills", 8) << pad("smem", 8) << pad("threads", 9)
        << pad("blocks/SM", 11) << "reason\n";
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
      out << pad(configText(m.config), width)
          << pad(std::string(statusName(m.result.status)), 15)
          << pad(num(res.registers, res.registers >= 0), 6)
          << pad(num(res.spillStores + res.spillLoads, res.registers >= 0), 8)
          << pad(num(res.smemStatic + res.smemDynamic, res.smemStatic >= 0), 8)
          << pad(num(res.threadsPerBlock, res.threadsPerBlock > 0), 9)
          << pad(num(res.blocksPerSM, res.blocksPerSM >= 0), 11) << reason
          << "\n";
    }
    if (first.finalists.size() > maxRows)
      out << "... " << first.finalists.size() - maxRows
          << " more in the results file\n";
    return out.str();
  }
  size_t shapeWidth = 5;
  for (const auto &s : r.shapes)
    shapeWidth = std::max(shapeWidth, shapeText(s.shape).size());
  shapeWidth += 2;
  out << pad("shape", shapeWidth) << pad("default us (IQR)", 20)
      << pad("best us (IQR)", 20) << pad("speedup", 9) << pad("evals", 7)
      << "best configuration\n";
  for (const auto &s : r.shapes) {
    char speed[32];
    std::snprintf(speed, sizeof(speed), "%.3fx", s.speedup);
    out << pad(shapeText(s.shape), shapeWidth)
        << pad(timeCell(s.defaultTime), 20) << pad(timeCell(s.bestTime), 20)
        << pad(speed, 9) << pad(std::to_string(s.evaluations), 7)
        << (s.bestConfig == s.defaultConfig ? "(default) " : "")
        << configText(s.bestConfig) << (s.retimed ? "" : "  [search times]")
        << (s.adoptedGeneral ? "  [general]" : "")
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
  return out.str();
}

} // namespace ktune
