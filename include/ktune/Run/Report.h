//===- ktune/Run/Report.h - report.html -------------------------*- C++ -*-===//
//
// A self-contained HTML page (no scripts, no network) describing a run: per
// kernel and shape the default against the tuned time, the speedup and the
// share of the roofline; a convergence plot per round; heat maps over the
// two most influential parameters; the chosen configurations and their
// resources; every round's plan and the reasons for the next one. Plots are
// inline SVG drawn here. The page's frame is templates/report.html.in, read
// at run time (`{{placeholder}}`s).
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_RUN_REPORT_H
#define KTUNE_RUN_REPORT_H

#include "ktune/Run/Record.h"

#include <map>
#include <string>
#include <vector>

namespace ktune::run {

/// Fills `templateText`'s {{name}} placeholders with renderTextTemplate
/// (ktune/Support/TextTemplate.h); an unknown one is an error naming it and
/// its line (`origin` names the template file); `{{` that does not form a
/// tag is text.
Expected<std::string>
fillTemplate(const std::string &templateText,
             const std::map<std::string, std::string> &values,
             const std::string &origin);

/// The report for `record`, in the frame `templateText`.
Expected<std::string> renderReport(const RunRecord &record,
                                   const std::string &templateText,
                                   const std::string &origin);

/// Escapes text for HTML element content and attribute values.
std::string htmlEscape(const std::string &text);

} // namespace ktune::run

#endif
