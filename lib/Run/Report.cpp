//===- Report.cpp - report.html -------------------------------------------===//
#include "ktune/Run/Report.h"

#include "Svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>

namespace ktune::run {

using nlohmann::json;

std::string htmlEscape(const std::string &text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&#39;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

Expected<std::string>
fillTemplate(const std::string &templateText,
             const std::map<std::string, std::string> &values,
             const std::string &origin) {
  std::string out;
  size_t i = 0;
  while (i < templateText.size()) {
    size_t open = templateText.find("{{", i);
    if (open == std::string::npos) {
      out.append(templateText, i, std::string::npos);
      break;
    }
    out.append(templateText, i, open - i);
    size_t close = templateText.find("}}", open + 2);
    std::string name = close == std::string::npos
                           ? std::string()
                           : templateText.substr(open + 2, close - open - 2);
    bool isName =
        !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
        });
    if (!isName) { // not a placeholder: keep the braces
      out += "{{";
      i = open + 2;
      continue;
    }
    auto it = values.find(name);
    if (it == values.end()) {
      size_t line =
          1 + static_cast<size_t>(std::count(
                  templateText.begin(),
                  templateText.begin() + static_cast<long>(open), '\n'));
      return makeError("unknown placeholder {{" + name + "}}",
                       origin + ":" + std::to_string(line));
    }
    out += it->second;
    i = close + 2;
  }
  return out;
}

namespace {

std::string fmt(const char *format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

/// Times in µs with about four significant digits.
std::string us(double v) {
  if (v < 10)
    return fmt("%.2f", v);
  if (v < 1000)
    return fmt("%.1f", v);
  return fmt("%.0f", v);
}

std::string esc(const std::string &s) { return htmlEscape(s); }

/// `text` escaped, with a long `command:` planner's command line cut to its
/// program and first argument's file names; the whole text is the tooltip.
std::string escPlanner(const std::string &text) {
  size_t at = text.find("command:");
  if (at == std::string::npos)
    return esc(text);
  size_t end = text.rfind(" after round ");
  if (end == std::string::npos || end < at)
    end = text.rfind(" (");
  if (end == std::string::npos || end < at)
    end = text.size();
  std::string command = text.substr(at + 8, end - at - 8);
  if (command.size() <= 48)
    return esc(text);
  std::vector<std::string> words;
  size_t i = 0;
  while (i < command.size() && words.size() < 2) {
    size_t j = command.find(' ', i);
    if (j == std::string::npos)
      j = command.size();
    if (j > i) {
      std::string w = command.substr(i, j - i);
      if (auto slash = w.rfind('/'); slash != std::string::npos)
        w = w.substr(slash + 1);
      words.push_back(w);
    }
    i = j + 1;
  }
  std::string shortCommand;
  for (const auto &w : words)
    shortCommand += (shortCommand.empty() ? "" : " ") + w;
  return "<span title=\"" + esc(text) + "\">" + esc(text.substr(0, at)) +
         "command:" + esc(shortCommand) + " &hellip;" + esc(text.substr(end)) +
         "</span>";
}

std::string configText(const Configuration &c) {
  std::string s;
  for (const auto &[k, v] : c)
    s += (s.empty() ? "" : " ") + k + "=" + std::to_string(v);
  return s.empty() ? "(none)" : s;
}

std::string shapeLabel(const Shape &shape) {
  std::string s;
  for (const auto &[k, v] : shape)
    s += (s.empty() ? "" : " ") + k + "=" + std::to_string(v);
  return s.empty() ? "(one shape)" : s;
}

std::string speedupCell(double s) {
  std::string cls = s >= 1.02   ? "speedup-good"
                    : s <= 0.98 ? "speedup-bad"
                                : "speedup-flat";
  return "<td class=\"num " + cls + "\">" + fmt("%.3f", s) + "x</td>";
}

std::string bar(std::optional<double> pct, bool tuned) {
  if (!pct)
    return "<span class=\"muted\">&ndash;</span>";
  double w = std::clamp(*pct, 0.0, 100.0);
  return "<span class=\"bar-wrap\"><span class=\"bar-label\">" +
         fmt("%.1f", *pct) + "%</span><span class=\"bar\"><span" +
         (tuned ? " class=\"tuned\"" : "") +
         " style=\"width:" + fmt("%.1f", w) + "%\"></span></span></span>";
}

std::string domainText(const Domain &d) {
  if (d.form == Domain::Form::Range) {
    if (d.pow2)
      return "2^k in " + std::to_string(d.min) + ".." + std::to_string(d.max);
    return std::to_string(d.min) + ".." + std::to_string(d.max) +
           (d.step != 1 ? " step " + std::to_string(d.step) : "");
  }
  std::string s = "{";
  for (size_t i = 0; i < d.values.size(); ++i)
    s += (i ? ", " : "") + std::to_string(d.values[i]);
  return s + "}";
}

std::string badge(const std::string &action) {
  return "<span class=\"badge " + esc(action) + "\">" + esc(action) + "</span>";
}

const RoundRecord *bestRound(const RunRecord &r) {
  for (const auto &round : r.rounds)
    if (round.round == r.bestRound)
      return &round;
  return r.rounds.empty() ? nullptr : &r.rounds.back();
}

// ---------------------------------------------------------------------------

std::string overview(const RunRecord &r) {
  const RoundRecord *best = bestRound(r);
  std::string s = "<div class=\"cards\">";
  auto card = [&](const std::string &big, const std::string &label) {
    s += "<div class=\"card\"><div class=\"big\">" + big +
         "</div><div class=\"label\">" + label + "</div></div>";
  };
  if (best)
    for (const auto &k : best->kernels) {
      const auto &a = k.analysis;
      if (a.compileOnly) {
        uint64_t ok = 0;
        auto it = a.statusCounts.find(EvalStatus::Ok);
        if (it != a.statusCounts.end())
          ok = it->second;
        card(std::to_string(a.evaluated),
             esc(k.kernel) + ": configuration-shape pairs compiled");
        card(std::to_string(ok), "within the hardware limits");
        continue;
      }
      card(fmt("%.3f", a.geomeanSpeedup) + "x",
           (best->kernels.size() > 1 ? esc(k.kernel) + ": " : "") +
               "geomean speedup over the default");
      double top = 1;
      for (const auto &sh : a.shapes)
        top = std::max(top, sh.speedup);
      card(fmt("%.2f", top) + "x", "largest speedup at one shape");
      if (a.rooflinePct)
        card(fmt("%.1f", *a.rooflinePct) + "%",
             a.anyBandwidthRelevant ? "of the roofline (best large shape)"
                                    : "of the roofline (best shape)");
      if (a.general)
        card(fmt("%.3f", a.general->geomeanSpeedup) + "x",
             "one general configuration");
    }
  card(std::to_string(r.rounds.size()) + " / " + std::to_string(r.roundsAsked),
       "rounds tuned / asked");
  s += "</div>\n<table class=\"meta\">";
  auto row = [&](const std::string &k, const std::string &v) {
    s += "<tr><th>" + k + "</th><td>" + v + "</td></tr>";
  };
  row("source", "<code>" + esc(r.source) + "</code>");
  // Without a GPU the device name already says the architecture.
  bool archInName =
      !r.arch.empty() && r.device.find(r.arch) != std::string::npos;
  row("device",
      esc(r.device.empty() ? "?" : r.device) +
          (archInName || r.arch.empty() ? "" : " (" + esc(r.arch) + ")") +
          ", " + esc(r.backend));
  if (r.backend != "compile-only")
    row("search", esc(r.strategy) + ", budget " +
                      (r.budget ? std::to_string(*r.budget) : "100") +
                      " per shape and round, seed " + std::to_string(r.seed));
  row("roofline",
      r.roofline.tbps
          ? fmt("%.2f", *r.roofline.tbps) + " TB/s (" + esc(r.roofline.source) +
                ")"
          : esc(r.roofline.source.empty() ? "unknown" : r.roofline.source));
  row("best round",
      std::to_string(r.bestRound) + " &mdash; " + esc(r.bestRoundReason));
  row("stopped", esc(r.stopReason));
  if (!r.commandLine.empty())
    row("command", "<code>" + esc(r.commandLine) + "</code>");
  row("started", esc(r.startedAt));
  s += "</table>\n";
  return s;
}

std::string summary(const RunRecord &r) {
  const RoundRecord *best = bestRound(r);
  if (!best)
    return "";
  std::string s = "<h2 id=\"summary\">Default against tuned</h2>\n";
  for (const auto &k : best->kernels) {
    const auto &a = k.analysis;
    if (a.compileOnly) {
      s += "<p>No GPU was used: the kernel <code>" + esc(k.kernel) +
           "</code> was compiled in every configuration, nothing was timed. "
           "The configurations and their resources are listed below.</p>\n";
      continue;
    }
    s += "<h3><code>" + esc(k.kernel) + "</code> &mdash; round " +
         std::to_string(best->round) + "</h3>\n";
    s += "<table><tr><th>shape</th><th class=\"num\">default &micro;s</th>"
         "<th class=\"num\">tuned &micro;s</th><th class=\"num\">speedup</th>"
         "<th>roofline (default)</th><th>roofline (tuned)</th><th>tuned "
         "configuration"
         "</th></tr>\n";
    for (const auto &sh : a.shapes) {
      s += "<tr><td class=\"mono\">" + esc(shapeLabel(sh.shape)) + "</td>";
      s += "<td class=\"num\">" +
           (sh.defaultUs ? us(*sh.defaultUs) : "&ndash;") + "</td>";
      s += "<td class=\"num\">" +
           (sh.bestUs ? us(*sh.bestUs) + " <span class=\"muted\">&plusmn;" +
                            us(sh.bestIqrUs / 2) + "</span>"
                      : "&ndash;") +
           "</td>";
      s += speedupCell(sh.speedup);
      s += "<td>" + bar(sh.defaultRooflinePct, false) + "</td>";
      s += "<td>" + bar(sh.rooflinePct, true) + "</td>";
      s += "<td class=\"mono\">" +
           (sh.bestConfig == sh.defaultConfig ? std::string("(default) ")
                                              : std::string()) +
           esc(configText(sh.bestConfig)) + "</td></tr>\n";
    }
    s += "</table>\n<p class=\"muted\">Times are medians of the final "
         "interleaved re-timing of the default and the finalists "
         "(&plusmn; half the interquartile range). Roofline: the shape's "
         "bytes (" +
         std::string(a.shapes.empty() || a.shapes[0].bytesFromExpression
                         ? "the spec's <code>bytes</code>"
                         : "buffer sizes: inputs read once, outputs written "
                           "once") +
         ") over the time, against " +
         (r.roofline.tbps ? fmt("%.2f", *r.roofline.tbps) + " TB/s"
                          : std::string("an unknown bandwidth")) +
         ".</p>\n";
    if (a.general)
      s += "<p>One configuration for every shape (the <em>general</em> "
           "configuration): <code>" +
           esc(configText(a.general->config)) + "</code>, geomean speedup " +
           fmt("%.3f", a.general->geomeanSpeedup) + "x over " +
           std::to_string(a.general->candidates) +
           " candidates compared.</p>\n";
  }
  return s;
}

std::string convergence(const RunRecord &r) {
  std::set<std::string> kernels;
  for (const auto &round : r.rounds)
    for (const auto &k : round.kernels)
      if (!k.analysis.compileOnly)
        kernels.insert(k.kernel);
  if (kernels.empty())
    return "";
  std::string s = "<h2 id=\"convergence\">Convergence</h2>\n<p "
                  "class=\"muted\">The best time "
                  "found so far after each evaluation, relative to the "
                  "default configuration's time at the same shape, as the "
                  "geometric mean over the shapes (lower is better; the "
                  "default is evaluated first). One line per round.</p>\n"
                  "<div class=\"grid\">";
  for (const auto &name : kernels) {
    svg::LinePlot plot;
    plot.title = name + ": best so far / default";
    plot.xLabel = "evaluations per shape";
    plot.yLabel = "time / default (geomean)";
    plot.width = 760;
    plot.height = 330;
    plot.referenceY = 1.0;
    plot.referenceLabel = "default";
    size_t index = 0;
    for (const auto &round : r.rounds)
      for (const auto &k : round.kernels) {
        if (k.kernel != name || k.analysis.compileOnly)
          continue;
        size_t longest = 0;
        for (const auto &sh : k.analysis.shapes)
          longest = std::max(longest, sh.bestSoFarUs.size());
        svg::Series series;
        series.name = "round " + std::to_string(round.round) + " (" +
                      std::to_string(k.analysis.params.size()) + " params)";
        series.color = svg::seriesColor(index++);
        double previous = 0;
        for (size_t i = 0; i < longest; ++i) {
          double logSum = 0;
          size_t n = 0;
          for (const auto &sh : k.analysis.shapes) {
            if (sh.bestSoFarUs.empty())
              continue;
            const auto &trace = sh.bestSoFarUs;
            std::optional<double> v =
                i < trace.size() ? trace[i] : trace.back();
            std::optional<double> reference =
                trace.empty() ? std::nullopt : trace.front();
            if (!v || !reference || *reference <= 0)
              continue;
            logSum += std::log(*v / *reference);
            ++n;
          }
          if (n == 0)
            continue;
          double y = std::exp(logSum / static_cast<double>(n));
          double x = static_cast<double>(i + 1);
          if (!series.points.empty())
            series.points.push_back({x, previous}); // a step
          series.points.push_back({x, y});
          previous = y;
        }
        plot.series.push_back(std::move(series));
      }
    s += svg::renderLinePlot(plot);
  }
  s += "</div>\n";
  return s;
}

std::string heatmaps(const RunRecord &r) {
  const RoundRecord *best = bestRound(r);
  if (!best)
    return "";
  std::string s;
  for (const auto &k : best->kernels) {
    const auto &a = k.analysis;
    if (a.compileOnly)
      continue;
    // The two parameters with the largest spread (domains of 2+ values).
    std::vector<std::string> chosen;
    for (const auto &inf : a.influence) {
      auto d = a.domains.find(inf.param);
      if (d != a.domains.end() && d->second.size() >= 2)
        chosen.push_back(inf.param);
      if (chosen.size() == 2)
        break;
    }
    if (chosen.empty())
      continue;
    std::string xParam = chosen[0];
    std::string yParam = chosen.size() > 1 ? chosen[1] : "";
    std::vector<int64_t> xs = a.domains.at(xParam).enumerate();
    std::vector<int64_t> ys = yParam.empty() ? std::vector<int64_t>{0}
                                             : a.domains.at(yParam).enumerate();
    std::sort(xs.begin(), xs.end());
    std::sort(ys.begin(), ys.end());
    if (xs.size() > 24 || ys.size() > 24)
      continue; // too many values for a readable map

    // Per shape: the fastest time per cell over the other parameters.
    struct Map {
      svg::HeatMap map;
      double worst = 1;
    };
    std::vector<Map> maps;
    double colorMax = 1.1;
    for (const auto &sh : a.shapes) {
      Map m;
      m.map.title = shapeLabel(sh.shape);
      m.map.xLabel = xParam;
      m.map.yLabel = yParam.empty() ? "" : yParam;
      for (auto v : xs)
        m.map.xValues.push_back(std::to_string(v));
      for (auto v : ys)
        m.map.yValues.push_back(yParam.empty() ? "" : std::to_string(v));
      m.map.cells.assign(ys.size(),
                         std::vector<std::optional<double>>(xs.size()));
      m.map.failed.assign(ys.size(), std::vector<bool>(xs.size(), false));
      auto cellOf = [&](const Configuration &c)
          -> std::optional<std::pair<size_t, size_t>> {
        auto xv = c.find(xParam);
        if (xv == c.end())
          return std::nullopt;
        auto xi = std::find(xs.begin(), xs.end(), xv->second);
        size_t yi = 0;
        if (!yParam.empty()) {
          auto yv = c.find(yParam);
          if (yv == c.end())
            return std::nullopt;
          auto it = std::find(ys.begin(), ys.end(), yv->second);
          if (it == ys.end())
            return std::nullopt;
          yi = static_cast<size_t>(it - ys.begin());
        }
        if (xi == xs.end())
          return std::nullopt;
        return std::pair<size_t, size_t>{yi,
                                         static_cast<size_t>(xi - xs.begin())};
      };
      double fastest = 0;
      for (const auto &e : k.journal)
        if (e.key.shape == sh.shape && e.phase != JournalPhase::Retime &&
            e.result.status == EvalStatus::Ok && e.result.time)
          fastest = fastest == 0 ? e.result.time->medianUs
                                 : std::min(fastest, e.result.time->medianUs);
      for (const auto &e : k.journal) {
        if (e.key.shape != sh.shape || e.phase == JournalPhase::Retime)
          continue;
        auto at = cellOf(e.key.config);
        if (!at)
          continue;
        auto &cell = m.map.cells[at->first][at->second];
        if (e.result.status == EvalStatus::Ok && e.result.time && fastest > 0) {
          double rel = e.result.time->medianUs / fastest;
          cell = cell ? std::min(*cell, rel) : rel;
          m.map.failed[at->first][at->second] = false;
        } else if (!cell) {
          m.map.failed[at->first][at->second] = true;
        }
      }
      for (const auto &row : m.map.cells)
        for (const auto &c : row)
          if (c)
            m.worst = std::max(m.worst, *c);
      colorMax = std::max(colorMax, std::min(m.worst, 3.0));
      m.map.best = cellOf(sh.bestConfig);
      m.map.fallback = cellOf(sh.defaultConfig);
      m.map.cell = xs.size() > 10 ? 22 : 28;
      maps.push_back(std::move(m));
    }
    if (s.empty())
      s = "<h2 id=\"heatmaps\">Where the time goes</h2>\n";
    s += "<h3><code>" + esc(k.kernel) + "</code>: " + esc(xParam) +
         (yParam.empty() ? "" : " &times; " + esc(yParam)) + ", round " +
         std::to_string(best->round) + "</h3>\n";
    s += "<p class=\"muted\">The " +
         std::string(yParam.empty() ? "parameter" : "two parameters") +
         " whose values change the best time most. Each cell: the fastest "
         "measured configuration with those values (the other parameters "
         "free), relative to the fastest at the shape. Grey: not measured; "
         "&times;: only failures or pruned configurations. Black outline: "
         "the tuned configuration; dashed blue: the default.</p>\n";
    s += svg::renderColorBar(colorMax, "heat-" + std::to_string(best->round) +
                                           "-" + k.kernel);
    s += "<div class=\"grid\">";
    for (auto &m : maps) {
      m.map.colorMax = colorMax;
      s += svg::renderHeatMap(m.map);
    }
    s += "</div>\n";
  }
  return s;
}

std::string resourcesRow(const Resources &res, int maxThreadsPerSM) {
  std::string s;
  auto cell = [&](const std::string &v) {
    s += "<td class=\"num\">" + v + "</td>";
  };
  cell(res.registers >= 0 ? std::to_string(res.registers) : "&ndash;");
  cell(std::to_string(res.spillStores) + " / " +
       std::to_string(res.spillLoads));
  cell(res.smemStatic >= 0 ? std::to_string(res.smemStatic) : "&ndash;");
  cell(std::to_string(res.smemDynamic));
  cell(res.threadsPerBlock > 0 ? std::to_string(res.threadsPerBlock)
                               : "&ndash;");
  cell(res.blocksPerSM >= 0 ? std::to_string(res.blocksPerSM) : "&ndash;");
  if (res.blocksPerSM >= 0 && res.threadsPerBlock > 0 && maxThreadsPerSM > 0)
    cell(fmt("%.0f",
             100.0 * res.blocksPerSM * res.threadsPerBlock / maxThreadsPerSM) +
         "%");
  else
    cell("&ndash;");
  return s;
}

const char *ResourceHeader =
    "<th class=\"num\">registers</th><th class=\"num\">spills st/ld</th>"
    "<th class=\"num\">smem static B</th><th class=\"num\">smem dynamic B"
    "</th><th class=\"num\">threads/block</th><th class=\"num\">blocks/SM"
    "</th><th class=\"num\">occupancy</th>";

std::string configurations(const RunRecord &r) {
  const RoundRecord *best = bestRound(r);
  if (!best)
    return "";
  std::string s = "<h2 id=\"configurations\">Chosen configurations and their "
                  "resources</h2>\n";
  for (const auto &k : best->kernels) {
    const auto &a = k.analysis;
    if (!a.compileOnly) {
      s += "<h3><code>" + esc(k.kernel) +
           "</code></h3>\n<table><tr><th>"
           "shape</th><th>configuration</th>" +
           std::string(ResourceHeader) + "</tr>\n";
      for (const auto &sh : a.shapes)
        s += "<tr><td class=\"mono\">" + esc(shapeLabel(sh.shape)) +
             "</td><td class=\"mono\">" + esc(configText(sh.bestConfig)) +
             "</td>" + resourcesRow(sh.bestResources, r.maxThreadsPerSM) +
             "</tr>\n";
      s += "</table>\n<p class=\"muted\">Registers, spills and static "
           "shared memory as the compiler and the driver report them; "
           "blocks/SM from the occupancy calculation; occupancy = resident "
           "threads / " +
           std::to_string(r.maxThreadsPerSM) + " per SM.</p>\n";
      continue;
    }
    // Compile-only: every configuration compiled at the first shape.
    const auto &results = k.results;
    if (results.shapes.empty())
      continue;
    const ShapeResult &first = results.shapes.front();
    std::map<std::string, size_t> reasons;
    for (const auto &sh : results.shapes)
      for (const auto &f : sh.finalists)
        if (f.result.status != EvalStatus::Ok)
          ++reasons[std::string(statusName(f.result.status)) + ": " +
                    f.result.reason];
    s += "<h3><code>" + esc(k.kernel) +
         "</code>: " + std::to_string(first.finalists.size()) +
         " configurations at " + esc(shapeLabel(first.shape)) + " (of " +
         std::to_string(results.shapes.size()) + " shapes)</h3>\n";
    if (!reasons.empty()) {
      s += "<table><tr><th class=\"num\">pairs</th><th>not runnable "
           "because</th></tr>\n";
      std::vector<std::pair<std::string, size_t>> sorted(reasons.begin(),
                                                         reasons.end());
      std::stable_sort(
          sorted.begin(), sorted.end(),
          [](const auto &x, const auto &y) { return x.second > y.second; });
      for (size_t i = 0; i < sorted.size() && i < 12; ++i)
        s += "<tr><td class=\"num\">" + std::to_string(sorted[i].second) +
             "</td><td>" + esc(sorted[i].first) + "</td></tr>\n";
      s += "</table>\n";
    }
    s += "<details" + std::string(first.finalists.size() <= 40 ? " open" : "") +
         "><summary>every configuration at this shape</summary><table><tr>"
         "<th>configuration</th><th>status</th>" +
         std::string(ResourceHeader) + "</tr>\n";
    size_t shown = 0;
    for (const auto &f : first.finalists) {
      if (++shown > 400)
        break;
      s += "<tr><td class=\"mono\">" + esc(configText(f.config)) +
           (f.config == first.defaultConfig ? " (default)" : "") + "</td><td>" +
           esc(std::string(statusName(f.result.status))) + "</td>" +
           resourcesRow(f.result.resources, r.maxThreadsPerSM) + "</tr>\n";
    }
    s += "</table></details>\n";
  }
  return s;
}

std::string roundsSection(const RunRecord &r) {
  std::string s = "<h2 id=\"rounds\">Rounds: plans and reasons</h2>\n";
  for (const auto &round : r.rounds) {
    bool isBest = round.round == r.bestRound;
    s += "<div class=\"round" + std::string(isBest ? " best" : "") +
         "\"><h3>Round " + std::to_string(round.round) +
         (isBest ? " <span class=\"badge lift\">best</span>" : "") +
         " &mdash; plan from " + escPlanner(round.planSource) + "</h3>\n";
    s += "<p class=\"muted\">" + fmt("%.1f", round.seconds) +
         " s; template <code>" + esc(round.dir + "/" + round.templateFile) +
         "</code>, plan <code>" + esc(round.dir + "/plan.json") +
         "</code>.</p>\n";
    for (const auto &pk : round.plan.kernels) {
      const KernelRound *kr = nullptr;
      for (const auto &k : round.kernels)
        if (sameKernel(pk.kernel, k.kernel))
          kr = &k;
      s += "<table><tr><th>parameter</th><th>kind</th><th>candidates</th>"
           "<th class=\"num\">default</th><th>domain</th><th>best values "
           "(shapes)</th><th class=\"num\">largest effect</th></tr>\n";
      for (const auto &p : pk.params) {
        std::string cands;
        for (const auto &c : p.candidates)
          cands += (cands.empty() ? "" : ", ") + c;
        std::string bestValues = "&ndash;", effect = "&ndash;";
        if (kr && !kr->analysis.compileOnly) {
          std::map<int64_t, size_t> counts;
          for (const auto &sh : kr->analysis.shapes)
            if (auto it = sh.bestConfig.find(p.name); it != sh.bestConfig.end())
              ++counts[it->second];
          bestValues.clear();
          for (const auto &[v, n] : counts)
            bestValues += (bestValues.empty() ? "" : ", ") + std::to_string(v) +
                          " (" + std::to_string(n) + ")";
          for (const auto &inf : kr->analysis.influence)
            if (inf.param == p.name && inf.shapesMeasured > 0)
              effect = fmt("%.1f", inf.maxSpreadPct) + "%" +
                       (inf.insensitive ? " <span class=\"muted\">(noise)"
                                          "</span>"
                                        : "");
        }
        s += "<tr><td class=\"mono\">" + esc(p.name) + "</td><td>" +
             esc(std::string(kindName(p.kind))) + "</td><td class=\"mono\">" +
             esc(cands) + "</td><td class=\"num\">" +
             std::to_string(p.defaultValue) + "</td><td class=\"mono\">" +
             esc(domainText(p.domain)) + "</td><td class=\"mono\">" +
             bestValues + "</td><td class=\"num\">" + effect + "</td></tr>\n";
      }
      s += "</table>\n";
      if (!pk.constraints.empty()) {
        s += "<p>Constraints: ";
        for (size_t i = 0; i < pk.constraints.size(); ++i)
          s += (i ? ", " : "") + std::string("<code>") +
               esc(pk.constraints[i]) + "</code>";
        s += "</p>\n";
      }
      if (kr && !kr->analysis.compileOnly) {
        const auto &a = kr->analysis;
        s += "<p>Analysis: geomean speedup " + fmt("%.3f", a.geomeanSpeedup) +
             "x; timing noise " + fmt("%.2f", 100 * a.noise) + "% (threshold " +
             fmt("%.2f", 100 * a.threshold) + "%)";
        if (a.rooflinePct)
          s += "; " + fmt("%.1f", *a.rooflinePct) +
               "% of the roofline at best" +
               (a.farFromRoofline ? " (far from it)" : "");
        s += "; " + std::to_string(a.evaluated) + " evaluations.</p>\n";
        for (const auto &n : a.notes)
          s += "<p class=\"muted\">" + esc(n) + "</p>\n";
      }
    }
    if (!round.planningMessages.empty()) {
      s += "<details><summary>planner messages</summary><ul>";
      for (const auto &m : round.planningMessages)
        s += "<li class=\"mono\">" + esc(m) + "</li>";
      s += "</ul></details>\n";
    }
    if (round.stop)
      s += "<ul class=\"reasons\"><li>" +
           badge(round.stop->stop ? "stop" : "continue") + " " +
           esc(round.stop->reason) + "</li></ul>\n";
    if (round.replan) {
      s += "<p><strong>Re-plan after round " + std::to_string(round.round) +
           "</strong> (" + escPlanner(round.replan->replanner) +
           (round.replan->outcome.empty() ? ""
                                          : ", " + esc(round.replan->outcome)) +
           "):</p>\n<ul class=\"reasons\">";
      for (const auto &reason : round.replan->reasons)
        s += "<li>" + badge(std::string(replanActionName(reason.action))) +
             " " +
             (reason.param.empty()
                  ? std::string()
                  : "<code>" + esc(reason.param) + "</code>: ") +
             escPlanner(reason.message) + "</li>\n";
      s += "</ul>\n";
    }
    if (&round == &r.rounds.back() && !r.stopReason.empty() &&
        !(round.stop && round.stop->reason == r.stopReason))
      s += "<ul class=\"reasons\"><li>" + badge("stop") + " " +
           esc(r.stopReason) + "</li></ul>\n";
    s += "</div>\n";
  }
  return s;
}

std::string notes(const RunRecord &r) {
  std::vector<std::string> all = r.notes;
  for (const auto &round : r.rounds)
    for (const auto &n : round.refactorNotes)
      all.push_back("round " + std::to_string(round.round) + ": " + n);
  if (all.empty())
    return "";
  std::string s = "<h2 id=\"notes\">Notes</h2>\n<ul>";
  for (const auto &n : all)
    s += "<li>" + esc(n) + "</li>";
  return s + "</ul>\n";
}

} // namespace

Expected<std::string> renderReport(const RunRecord &record,
                                   const std::string &templateText,
                                   const std::string &origin) {
  std::string file = std::filesystem::path(record.source).filename().string();
  std::map<std::string, std::string> values;
  values["title"] = esc("ktune run: " + file);
  std::string kernels;
  if (!record.rounds.empty())
    for (const auto &k : record.rounds.front().kernels)
      kernels += (kernels.empty() ? "" : ", ") + k.kernel;
  values["subtitle"] =
      esc(kernels + " on " + (record.device.empty() ? "?" : record.device) +
          " \u2014 " + std::to_string(record.rounds.size()) + " round" +
          (record.rounds.size() == 1 ? "" : "s") +
          (record.backend == "compile-only" ? ", compile-only (no GPU)"
           : record.backend == "synthetic"  ? ", synthetic times"
                                            : ""));
  values["overview"] = overview(record);
  values["summary"] = summary(record);
  values["convergence"] = convergence(record);
  values["heatmaps"] = heatmaps(record);
  values["configurations"] = configurations(record);
  values["rounds"] = roundsSection(record);
  values["notes"] = notes(record);
  values["generated"] = esc(utcTimestamp());
  return fillTemplate(templateText, values, origin);
}

} // namespace ktune::run
