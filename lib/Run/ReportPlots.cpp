//===- ReportPlots.cpp - The SVG plots of report.html ---------------------===//
#include "ReportInternal.h"

#include "Svg.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

namespace ktune::run::report {

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

std::string heatmaps(const RunRecord &, const RoundRecord &best) {
  std::string s;
  for (const auto &k : best.kernels) {
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
         std::to_string(best.round) + "</h3>\n";
    s += "<p class=\"muted\">The " +
         std::string(yParam.empty() ? "parameter" : "two parameters") +
         " whose values change the best time most. Each cell: the fastest "
         "measured configuration with those values (the other parameters "
         "free), relative to the fastest at the shape. Grey: not measured; "
         "&times;: only failures or pruned configurations. Black outline: "
         "the tuned configuration; dashed blue: the default.</p>\n";
    s += svg::renderColorBar(colorMax, "heat-" + std::to_string(best.round) +
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

} // namespace ktune::run::report
