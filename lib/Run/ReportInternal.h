//===- ReportInternal.h - The sections of report.html -----------*- C++ -*-===//
//
// renderReport (Report.cpp) fills templates/report.html.in with sections
// drawn here: the overview, tables and rounds (ReportSections.cpp), the
// convergence plots and heat maps (ReportPlots.cpp), occupancy and grid
// fill with the diagnoses (ReportLaunch.cpp), from the formatting
// helpers of ReportFormat.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_LIB_RUN_REPORTINTERNAL_H
#define KTUNE_LIB_RUN_REPORTINTERNAL_H

#include "ktune/Run/Record.h"
#include "ktune/Support/Text.h"
#include "ktune/Tune/MultiDevice.h"
#include "ktune/Tune/Results.h"

#include <optional>
#include <string>

namespace ktune::run::report {

// Formatting (ReportFormat.cpp); numbers with formatDouble, configurations
// with configText (ktune/Support/Text.h, ktune/Tune/Results.h).
/// Times in µs with about four significant digits.
std::string us(double v);
std::string esc(const std::string &s);
/// `text` escaped, with a long `command:` planner's command line cut to its
/// program and first argument's file names; the whole text is the tooltip.
std::string escPlanner(const std::string &text);
std::string shapeLabel(const Shape &shape);
std::string speedupCell(double s);
/// "+4.1% &gt; noise 1.0%", or "default kept: +0.6% within noise 1.2%".
std::string choiceCell(const ShapeAnalysis &shape);
std::string bar(std::optional<double> pct, bool tuned);
std::string badge(const std::string &action);
const RoundRecord *bestRound(const RunRecord &r);

// Sections, each empty when it has nothing to show.
std::string overview(const RunRecord &r);      // ReportSections.cpp
std::string roundsSection(const RunRecord &r); // ReportSections.cpp
std::string notes(const RunRecord &r);         // ReportSections.cpp
std::string convergence(const RunRecord &r);   // ReportPlots.cpp
// Sections about the best round (bestRound), shown only when there is one.
std::string summary(const RunRecord &r, const RoundRecord &best);
std::string configurations(const RunRecord &r, const RoundRecord &best);
std::string launches(const RunRecord &r, const RoundRecord &best);
std::string heatmaps(const RunRecord &r, const RoundRecord &best);

} // namespace ktune::run::report

#endif
