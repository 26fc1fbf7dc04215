//===- Report.cpp - report.html -------------------------------------------===//
#include "ktune/Run/Report.h"

#include "ReportInternal.h"

#include "ktune/Support/TextTemplate.h"

#include <filesystem>

namespace ktune::run {

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
  return renderTextTemplate(templateText, values, origin,
                            {.upperCaseNames = true});
}

using namespace report;

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
  const RoundRecord *best = bestRound(record);
  auto aboutBest = [&](auto section) {
    return best ? section(record, *best) : std::string();
  };
  values["overview"] = overview(record);
  values["summary"] = aboutBest(summary);
  values["convergence"] = convergence(record);
  values["heatmaps"] = aboutBest(heatmaps);
  values["configurations"] = aboutBest(configurations);
  values["launches"] = aboutBest(launches);
  values["rounds"] = roundsSection(record);
  values["notes"] = notes(record);
  values["generated"] = esc(utcTimestamp());
  return fillTemplate(templateText, values, origin);
}

} // namespace ktune::run
