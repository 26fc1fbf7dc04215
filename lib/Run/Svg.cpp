//===- Svg.cpp - Small inline SVG plots for report.html -------------------===//
#include "Svg.h"

#include "ktune/Run/Report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ktune::run::svg {

namespace {

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string text(double x, double y, const std::string &s,
                 const std::string &anchor = "middle",
                 const std::string &cls = "", const std::string &extra = "") {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" text-anchor=\"" +
         anchor + "\"" + (cls.empty() ? "" : " class=\"" + cls + "\"") + extra +
         ">" + htmlEscape(s) + "</text>\n";
}

std::string line(double x1, double y1, double x2, double y2,
                 const std::string &cls) {
  return "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) +
         "\" y2=\"" + num(y2) + "\" class=\"" + cls + "\"/>\n";
}

struct Rgb {
  double r, g, b;
};

std::string hex(const Rgb &c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x",
                static_cast<int>(std::lround(std::clamp(c.r, 0.0, 255.0))),
                static_cast<int>(std::lround(std::clamp(c.g, 0.0, 255.0))),
                static_cast<int>(std::lround(std::clamp(c.b, 0.0, 255.0))));
  return buf;
}

/// Light yellow (fastest) through orange to dark red (slowest).
Rgb heatRgb(double t) {
  static const Rgb stops[] = {{255, 255, 204},
                              {254, 217, 118},
                              {253, 141, 60},
                              {227, 26, 28},
                              {128, 0, 38}};
  t = std::clamp(t, 0.0, 1.0) * 4.0;
  int i = std::min(3, static_cast<int>(t));
  double f = t - i;
  const Rgb &a = stops[i], &b = stops[i + 1];
  return {a.r + (b.r - a.r) * f, a.g + (b.g - a.g) * f, a.b + (b.b - a.b) * f};
}

double heatT(double r, double colorMax) {
  if (colorMax <= 1.0)
    return 0;
  return std::log(std::max(r, 1.0)) / std::log(colorMax);
}

} // namespace

std::vector<double> niceTicks(double lo, double hi, int count) {
  if (!(hi > lo)) {
    double pad = lo == 0 ? 1 : std::abs(lo) * 0.1;
    lo -= pad;
    hi += pad;
  }
  double raw = (hi - lo) / std::max(1, count);
  double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  std::vector<double> ticks;
  double first = std::floor(lo / step + 1e-9) * step;
  for (double v = first; v <= hi + step * 0.999; v += step)
    ticks.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
  return ticks;
}

std::string tickText(double v) {
  char buf[32];
  if (v == std::floor(v) && std::abs(v) < 1e9)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::string seriesColor(size_t index) {
  static const char *colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                 "#ff7f0e", "#8c564b", "#17becf", "#7f7f7f"};
  return colors[index % (sizeof colors / sizeof *colors)];
}

std::string heatColor(double r, double colorMax) {
  return hex(heatRgb(heatT(r, colorMax)));
}

std::string renderLinePlot(const LinePlot &p) {
  // The legend sits right of the plot: room for its longest label.
  size_t longest = 0;
  for (const auto &series : p.series)
    longest = std::max(longest, series.name.size());
  const double left = 64, top = 34, bottom = 48;
  const double right =
      std::max(120.0, 52.0 + 6.6 * static_cast<double>(longest));
  double w = p.width, h = p.height;
  double plotW = w - left - right, plotH = h - top - bottom;

  double xmin = 0, xmax = 1, ymin = 0, ymax = 1;
  bool first = true;
  for (const auto &s : p.series)
    for (const auto &[x, y] : s.points) {
      if (first) {
        xmin = xmax = x;
        ymin = ymax = y;
        first = false;
      }
      xmin = std::min(xmin, x);
      xmax = std::max(xmax, x);
      ymin = std::min(ymin, y);
      ymax = std::max(ymax, y);
    }
  if (p.referenceY) {
    ymin = std::min(ymin, *p.referenceY);
    ymax = std::max(ymax, *p.referenceY);
  }
  if (p.yMin)
    ymin = *p.yMin;
  if (p.yMax)
    ymax = *p.yMax;
  auto xt = niceTicks(xmin, xmax, 6);
  auto yt = niceTicks(ymin, ymax, 5);
  xmin = std::min(xmin, xt.front());
  xmax = std::max(xmax, xt.back());
  ymin = std::min(ymin, yt.front());
  ymax = std::max(ymax, yt.back());
  if (xmax == xmin)
    xmax = xmin + 1;
  if (ymax == ymin)
    ymax = ymin + 1;
  auto X = [&](double x) { return left + (x - xmin) / (xmax - xmin) * plotW; };
  auto Y = [&](double y) {
    return top + plotH - (y - ymin) / (ymax - ymin) * plotH;
  };

  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                  num(w) + "\" height=\"" + num(h) + "\" viewBox=\"0 0 " +
                  num(w) + " " + num(h) + "\" class=\"plot\" role=\"img\">\n";
  s += "<title>" + htmlEscape(p.title) + "</title>\n";
  s += text(left + plotW / 2, 20, p.title, "middle", "plot-title");
  // Grid and ticks.
  for (double v : yt) {
    if (v < ymin - 1e-12 || v > ymax + 1e-12)
      continue;
    s += line(left, Y(v), left + plotW, Y(v), "grid");
    s += line(left - 5, Y(v), left, Y(v), "axis");
    s += text(left - 8, Y(v) + 4, tickText(v), "end", "tick");
  }
  for (double v : xt) {
    if (v < xmin - 1e-12 || v > xmax + 1e-12)
      continue;
    s += line(X(v), top, X(v), top + plotH, "grid");
    s += line(X(v), top + plotH, X(v), top + plotH + 5, "axis");
    s += text(X(v), top + plotH + 18, tickText(v), "middle", "tick");
  }
  s += line(left, top, left, top + plotH, "axis");
  s += line(left, top + plotH, left + plotW, top + plotH, "axis");
  s += text(left + plotW / 2, h - 8, p.xLabel, "middle", "axis-label");
  s += text(16, top + plotH / 2, p.yLabel, "middle", "axis-label",
            " transform=\"rotate(-90 16 " + num(top + plotH / 2) + ")\"");

  if (p.referenceY) {
    s += "<line x1=\"" + num(left) + "\" y1=\"" + num(Y(*p.referenceY)) +
         "\" x2=\"" + num(left + plotW) + "\" y2=\"" + num(Y(*p.referenceY)) +
         "\" class=\"reference\"/>\n";
    if (!p.referenceLabel.empty())
      s += text(left + plotW - 4, Y(*p.referenceY) - 5, p.referenceLabel, "end",
                "reference-label");
  }
  for (const auto &series : p.series) {
    if (series.points.empty())
      continue;
    std::string pts;
    for (const auto &[x, y] : series.points)
      pts += num(X(x)) + "," + num(Y(y)) + " ";
    s += "<polyline fill=\"none\" stroke=\"" + series.color +
         "\" stroke-width=\"2\"" +
         (series.dashed ? " stroke-dasharray=\"5 3\"" : "") + " points=\"" +
         pts + "\"/>\n";
    const auto &[lx, ly] = series.points.back();
    s += "<circle cx=\"" + num(X(lx)) + "\" cy=\"" + num(Y(ly)) +
         "\" r=\"3\" fill=\"" + series.color + "\"/>\n";
  }
  // Legend, to the right of the plot.
  double ly = top + 8;
  for (const auto &series : p.series) {
    s += "<line x1=\"" + num(left + plotW + 14) + "\" y1=\"" + num(ly) +
         "\" x2=\"" + num(left + plotW + 36) + "\" y2=\"" + num(ly) +
         "\" stroke=\"" + series.color + "\" stroke-width=\"2\"" +
         (series.dashed ? " stroke-dasharray=\"5 3\"" : "") + "/>\n";
    s += text(left + plotW + 42, ly + 4, series.name, "start", "legend");
    ly += 18;
  }
  s += "</svg>\n";
  return s;
}

std::string renderHeatMap(const HeatMap &m) {
  const double left = 58, top = 30, bottom = 46, right = 10;
  double c = m.cell;
  double gridW = c * static_cast<double>(m.xValues.size());
  double gridH = c * static_cast<double>(m.yValues.size());
  double w = std::max(left + gridW + right, 150.0);
  double h = top + gridH + bottom;
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                  num(w) + "\" height=\"" + num(h) + "\" viewBox=\"0 0 " +
                  num(w) + " " + num(h) +
                  "\" class=\"heatmap\" role=\"img\">\n";
  s += "<title>" + htmlEscape(m.title) + "</title>\n";
  s += text(left + gridW / 2, 16, m.title, "middle", "plot-title small");
  for (size_t y = 0; y < m.yValues.size(); ++y) {
    // Highest value on top.
    size_t row = m.yValues.size() - 1 - y;
    double py = top + c * static_cast<double>(row);
    s += text(left - 5, py + c / 2 + 4, m.yValues[y], "end", "tick");
    for (size_t x = 0; x < m.xValues.size(); ++x) {
      double px = left + c * static_cast<double>(x);
      const auto &v = m.cells[y][x];
      bool failed =
          !v && y < m.failed.size() && x < m.failed[y].size() && m.failed[y][x];
      std::string fill =
          v ? heatColor(*v, m.colorMax) : (failed ? "#d9d9d9" : "#f4f4f4");
      s +=
          "<rect x=\"" + num(px) + "\" y=\"" + num(py) + "\" width=\"" +
          num(c) + "\" height=\"" + num(c) + "\" fill=\"" + fill +
          "\" class=\"cell\"><title>" +
          htmlEscape(m.xLabel + "=" + m.xValues[x] + ", " + m.yLabel + "=" +
                     m.yValues[y] + ": " +
                     (v ? tickText(std::round(*v * 100) / 100) + "x the fastest"
                      : failed ? "failed or pruned"
                               : "not measured")) +
          "</title></rect>\n";
      if (v && c >= 24) {
        double t = heatT(*v, m.colorMax);
        char buf[16];
        std::snprintf(buf, sizeof buf, *v < 9.95 ? "%.2f" : "%.0f", *v);
        s += text(px + c / 2, py + c / 2 + 3.5, buf, "middle",
                  t > 0.55 ? "cell-text dark" : "cell-text");
      } else if (failed) {
        s += text(px + c / 2, py + c / 2 + 4, "\u00d7", "middle", "cell-text");
      }
    }
  }
  auto outline = [&](std::pair<size_t, size_t> at, const std::string &cls) {
    size_t row = m.yValues.size() - 1 - at.first;
    return "<rect x=\"" + num(left + c * static_cast<double>(at.second) + 1) +
           "\" y=\"" + num(top + c * static_cast<double>(row) + 1) +
           "\" width=\"" + num(c - 2) + "\" height=\"" + num(c - 2) +
           "\" class=\"" + cls + "\"/>\n";
  };
  if (m.fallback)
    s += outline(*m.fallback, "default-cell");
  if (m.best)
    s += outline(*m.best, "best-cell");
  for (size_t x = 0; x < m.xValues.size(); ++x)
    s += text(left + c * static_cast<double>(x) + c / 2, top + gridH + 14,
              m.xValues[x], "middle", "tick");
  s += text(left + gridW / 2, top + gridH + 34, m.xLabel, "middle",
            "axis-label");
  s += text(14, top + gridH / 2, m.yLabel, "middle", "axis-label",
            " transform=\"rotate(-90 14 " + num(top + gridH / 2) + ")\"");
  s += "</svg>\n";
  return s;
}

std::string renderColorBar(double colorMax, const std::string &id, int width) {
  const double h = 44, barH = 12, left = 10, top = 6;
  double barW = width - 2 * left;
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                  std::to_string(width) + "\" height=\"" + num(h) +
                  "\" class=\"colorbar\" role=\"img\">\n";
  s += "<defs><linearGradient id=\"" + id +
       "\" x1=\"0\" x2=\"1\" y1=\"0\" "
       "y2=\"0\">";
  for (int i = 0; i <= 8; ++i) {
    double t = i / 8.0;
    s += "<stop offset=\"" + num(100 * t) + "%\" stop-color=\"" +
         hex(heatRgb(t)) + "\"/>";
  }
  s += "</linearGradient></defs>\n";
  s += "<rect x=\"" + num(left) + "\" y=\"" + num(top) + "\" width=\"" +
       num(barW) + "\" height=\"" + num(barH) + "\" fill=\"url(#" + id +
       ")\" stroke=\"#999\"/>\n";
  // Ticks at round relative times, placed on the log scale.
  std::vector<double> marks{1.0};
  for (double v : {1.1, 1.25, 1.5, 2.0, 3.0, 5.0, 10.0})
    if (v <= colorMax * 1.0001)
      marks.push_back(v);
  // A label needs about 30 px: marks closer than that to the last labelled
  // one get a tick only.
  double lastLabel = -1e9;
  for (double v : marks) {
    double x = left + heatT(v, colorMax) * barW;
    s += line(x, top + barH, x, top + barH + 4, "axis");
    if (x - lastLabel < 30)
      continue;
    s += text(x, top + barH + 16, tickText(v) + "x", "middle", "tick");
    lastLabel = x;
  }
  s += "</svg>\n";
  return s;
}

} // namespace ktune::run::svg
