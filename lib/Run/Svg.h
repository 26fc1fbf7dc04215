//===- Svg.h - Small inline SVG plots for report.html -----------*- C++ -*-===//
//
// Line plots with axes, ticks and labels, and heat maps with a colour bar,
// drawn as SVG text. Private to lib/Run.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_LIB_RUN_SVG_H
#define KTUNE_LIB_RUN_SVG_H

#include <optional>
#include <string>
#include <vector>

namespace ktune::run::svg {

/// Round tick values covering [lo, hi] (about `count` of them).
std::vector<double> niceTicks(double lo, double hi, int count);

/// Shortest readable text for a tick value ("0.5", "10", "1.25").
std::string tickText(double v);

struct Series {
  std::string name;
  std::string color;
  std::vector<std::pair<double, double>> points; // x, y
  bool dashed = false;
};

struct LinePlot {
  std::string title;
  std::string xLabel, yLabel;
  int width = 640, height = 320;
  std::vector<Series> series;
  /// A horizontal reference line (e.g. the default at 1.0), with a label.
  std::optional<double> referenceY;
  std::string referenceLabel;
  /// Axis ranges; unset = from the data.
  std::optional<double> yMin, yMax;
};
std::string renderLinePlot(const LinePlot &plot);

struct HeatMap {
  std::string title;
  std::string xLabel, yLabel; // parameter names
  std::vector<std::string> xValues, yValues;
  /// cells[y][x]: relative time (1 = the fastest); nullopt = not measured.
  std::vector<std::vector<std::optional<double>>> cells;
  /// Cells only failures were seen at.
  std::vector<std::vector<bool>> failed;
  std::optional<std::pair<size_t, size_t>> best;     // (y, x)
  std::optional<std::pair<size_t, size_t>> fallback; // the default (y, x)
  double colorMax = 2.0; // relative time shown darkest
  int cell = 26;         // pixels per cell
};
std::string renderHeatMap(const HeatMap &map);

/// A horizontal colour bar for heat maps from 1 to `colorMax`; `id` names
/// its gradient (unique within the page).
std::string renderColorBar(double colorMax, const std::string &id,
                           int width = 260);

/// The heat colour of relative time `r` (1 = light, colorMax = dark).
std::string heatColor(double r, double colorMax);

/// A series colour by index.
std::string seriesColor(size_t index);

} // namespace ktune::run::svg

#endif
