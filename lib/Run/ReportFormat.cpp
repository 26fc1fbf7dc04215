//===- ReportFormat.cpp - Numbers, labels and cells of report.html --------===//
#include "ReportInternal.h"

#include "ktune/Run/Report.h"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace ktune::run::report {

std::string us(double v) {
  if (v < 10)
    return formatDouble("%.2f", v);
  if (v < 1000)
    return formatDouble("%.1f", v);
  return formatDouble("%.0f", v);
}

std::string esc(const std::string &s) { return htmlEscape(s); }

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

std::string shapeLabel(const Shape &shape) {
  return shape.empty() ? "(one shape)" : namedValues(shape);
}

std::string speedupCell(double s) {
  std::string cls = s >= 1.02   ? "speedup-good"
                    : s <= 0.98 ? "speedup-bad"
                                : "speedup-flat";
  return "<td class=\"num " + cls + "\">" + formatDouble("%.3f", s) + "x</td>";
}

std::string choiceCell(const ShapeAnalysis &sh) {
  if (!sh.margin || !sh.noiseThreshold)
    return "<span class=\"muted\">&ndash;</span>";
  std::string lead = formatDouble("%+.1f", 100 * *sh.margin) + "%";
  std::string noise = formatDouble("%.1f", 100 * *sh.noiseThreshold) + "%";
  if (sh.keptWithinNoise)
    return "default kept: " + lead + " within noise " + noise;
  if (*sh.margin <= 0)
    return "<span class=\"muted\">default fastest</span>";
  return lead + " &gt; noise " + noise;
}

std::string bar(std::optional<double> pct, bool tuned) {
  if (!pct)
    return "<span class=\"muted\">&ndash;</span>";
  double w = std::clamp(*pct, 0.0, 100.0);
  return "<span class=\"bar-wrap\"><span class=\"bar-label\">" +
         formatDouble("%.1f", *pct) + "%</span><span class=\"bar\"><span" +
         (tuned ? " class=\"tuned\"" : "") +
         " style=\"width:" + formatDouble("%.1f", w) +
         "%\"></span></span></span>";
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

} // namespace ktune::run::report
