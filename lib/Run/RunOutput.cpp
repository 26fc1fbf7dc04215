//===- RunOutput.cpp - What `ktune run` leaves at the top of --out-dir ----===//
//
// The best round's template, manifest, plan and results, the dispatch
// header (regenerated from those results), run.json and report.html.
//
//===----------------------------------------------------------------------===//
#include "Runner.h"

#include "ktune/Run/Report.h"
#include "ktune/Support/DataPath.h"
#include "ktune/Support/FileUtil.h"
#include "ktune/Support/Try.h"

namespace ktune::run {

Status Runner::writeFinal(RunOutcome &outcome) {
  const RoundRecord &best = Record.rounds[Record.bestRound - 1];
  // The best round's template again, named for the top of the directory
  // (the manifest names its files relative to itself).
  std::string templatePath = out(stem() + ".tpl.cu");
  std::string manifestPath = out(stem() + ".tpl.json");
  KTUNE_TRY(writeTemplate(best.plan, templatePath, manifestPath,
                          best.dir + "/plan.json"));
  if (auto s = writeFileAtomically(out("plan.json"),
                                   planToJson(best.plan).dump(2) + "\n");
      !s)
    return s;
  for (size_t i = 0; i < best.kernels.size(); ++i) {
    TuneResults results = best.kernels[i].results;
    results.templatePath = templatePath;
    std::string resultsPath = out(resultsName(Kernels[i]));
    if (auto s = writeFileAtomically(resultsPath,
                                     resultsToJson(results).dump(2) + "\n");
        !s)
      return s;
    outcome.table += formatResultsTable(results);
    if (results.compileOnly)
      continue;
    TuneCommand cmd;
    cmd.templatePath = templatePath;
    cmd.manifestPath = manifestPath;
    cmd.specPath = out(best.dir + "/" + Kernels[i] + ".spec.json");
    cmd.kernel = Specs[i].spec.kernel;
    cmd.fromResults = resultsPath;
    cmd.headerPath = out(headerName(Kernels[i]));
    KTUNE_TRY(runTuneSession(cmd, evaluatorFactory()));
    outcome.headerPath = cmd.headerPath;
  }

  outcome.runJsonPath = out("run.json");
  if (auto s = writeFileAtomically(outcome.runJsonPath,
                                   runRecordToJson(Record).dump(2) + "\n");
      !s)
    return s;
  KTUNE_TRY_ASSIGN(auto frame, findDataFile("templates/report.html.in"));
  KTUNE_TRY_ASSIGN(auto text, readFile(frame));
  KTUNE_TRY_ASSIGN(auto html, renderReport(Record, text, frame));
  outcome.reportPath = out("report.html");
  return writeFileAtomically(outcome.reportPath, html);
}

} // namespace ktune::run
