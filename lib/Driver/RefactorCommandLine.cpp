//===- RefactorCommandLine.cpp - Stage 1 option groups --------------------===//

#include "ktune/Driver/RefactorCommandLine.h"
#include "ktune/Plan/PlanReduction.h"
#include "ktune/Refactor/Verify.h"

#include "ktune/Support/FileUtil.h"

namespace cl = llvm::cl;

namespace ktune::driver {

namespace {

llvm::Error toLlvm(const Error &error) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), error.str());
}

} // namespace

OutputCommandLine::OutputCommandLine(cl::OptionCategory &category)
    : Output("o", cl::desc("Write the template source here"),
             cl::value_desc("file"), cl::cat(category)),
      OutDir("out-dir",
             cl::desc("Write <stem>.tpl.cu (.tpl.cuh), <stem>.tpl.json and the "
                      "rewritten project headers (under include/) here"),
             cl::value_desc("dir"), cl::cat(category)),
      ManifestPath("manifest",
                   cl::desc("Write the manifest here (default: the output "
                            "with its extension replaced by .json)"),
                   cl::value_desc("file"), cl::cat(category)),
      Verify("verify",
             cl::desc("Compile the original and the output with nvcc and "
                      "write nothing unless the output's defaults give the "
                      "same PTX"),
             cl::cat(category)) {}

Expected<refactor::OutputPaths>
OutputCommandLine::paths(const std::string &input) const {
  return refactor::outputPaths(input, Output, OutDir, ManifestPath);
}

PlannerCommandLine::PlannerCommandLine(cl::OptionCategory &category)
    : Spec("planner",
           cl::desc("Who writes the plan: heuristic (default), "
                    "command:<command line>, openai:<base URL>"),
           cl::value_desc("planner"), cl::init("heuristic"), cl::cat(category)),
      Model(
          "model",
          cl::desc("Model name for an openai: planner (default: $KTUNE_MODEL)"),
          cl::value_desc("name"), cl::cat(category)),
      Timeout("planner-timeout",
              cl::desc("Seconds a text planner may take per exchange "
                       "(default: $KTUNE_PLANNER_TIMEOUT or 300)"),
              cl::value_desc("seconds"), cl::cat(category)) {}

planner::PlannerFlags PlannerCommandLine::flags() const {
  planner::PlannerFlags flags;
  flags.spec = Spec;
  flags.model = Model;
  if (Timeout.getNumOccurrences())
    flags.timeoutSeconds = Timeout;
  return flags;
}

ReportCommandLine::ReportCommandLine(cl::OptionCategory &category)
    : ExportFixes("export-fixes",
                  cl::desc("Write the findings and the plan's edits as "
                           "clang-tidy YAML, for clang-apply-replacements"),
                  cl::value_desc("file.yaml"), cl::cat(category)),
      Sarif("sarif", cl::desc("Write the findings as SARIF 2.1.0"),
            cl::value_desc("file.sarif"), cl::cat(category)),
      Warnings("warnings",
               cl::desc("Print each finding as 'file:line:col: "
                        "warning: ... [ktune-...]' on stderr"),
               cl::cat(category)) {}

bool ReportCommandLine::any() const {
  return !ExportFixes.empty() || !Sarif.empty() || Warnings;
}

std::optional<tidy::ReportOptions>
ReportCommandLine::options(std::string toolVersion) const {
  if (!any())
    return std::nullopt;
  return tidy::ReportOptions{ExportFixes, Sarif, Warnings,
                             std::move(toolVersion)};
}

planner::PlannerRequest plannerRequestFor(const refactor::Analysis &analysis,
                                          const std::string &gpuArch) {
  planner::PlannerRequest request;
  request.file = analysis.file;
  request.sources = analysis.sources();
  request.candidates = analysis.candidates;
  request.device.arch = gpuArch;
  return request;
}

std::expected<planner::ChosenPlan, std::vector<Error>>
choosePlanFor(const planner::PlannerRequest &request,
              const std::string &planFile, planner::Planner *planner,
              std::string auditDir,
              std::function<void(const std::string &)> log) {
  planner::PlanChoice choice;
  choice.planPath = planFile;
  choice.planner = planner;
  choice.planning.auditDir = std::move(auditDir);
  choice.planning.log = std::move(log);
  return planner::choosePlan(request, choice);
}

llvm::Expected<std::string>
writeRefactorOutputs(const refactor::Analysis &analysis,
                     const planner::ChosenPlan &chosen,
                     const RefactorOutputs &outputs,
                     const std::function<void(const std::string &)> &note) {
  const Plan &plan = chosen.plan;
  if (!outputs.emitPlan.empty())
    if (auto s = writeFileAtomically(outputs.emitPlan,
                                     planToJson(plan).dump(2) + "\n");
        !s)
      return toLlvm(s.error());
  if (outputs.reports)
    if (auto err = tidy::writeReports(analysis, plan, *outputs.reports))
      return std::move(err);
  const refactor::OutputPaths &paths = outputs.paths;
  if (paths.templatePath.empty())
    return "";

  // Plan errors name where the plan came from.
  std::string planOrigin = !outputs.planFile.empty() ? outputs.planFile
                           : chosen.planning
                               ? "planner " + chosen.planning->planner
                               : "plan";
  auto made = refactor::makeTemplate(analysis, plan, paths.templatePath,
                                     paths.manifestPath, planOrigin);
  // A built-in plan the rewrite cannot apply loses the parameter it names,
  // not the file: that parameter's sites keep their values.
  Plan reduced = plan;
  while (!made && reduced.planner == "heuristic" && outputs.planFile.empty()) {
    std::string message = llvm::toString(made.takeError()), dropped;
    auto fewer = withoutParamNamedIn(reduced, message, &dropped);
    if (!fewer)
      return llvm::createStringError(message);
    note(dropped +
         " is left out of the built-in plan, its sites keep their values: " +
         message);
    reduced = std::move(*fewer);
    made = refactor::makeTemplate(analysis, reduced, paths.templatePath,
                                  paths.manifestPath, planOrigin);
    // --emit-plan writes the plan the outputs follow.
    if (!outputs.emitPlan.empty())
      if (auto s = writeFileAtomically(outputs.emitPlan,
                                       planToJson(reduced).dump(2) + "\n");
          !s)
        return toLlvm(s.error());
  }
  if (!made)
    return made.takeError();
  for (const auto &n : made->notes)
    note(n);
  if (auto s = refactor::checkSingleFile(*made, paths); !s)
    return toLlvm(s.error());
  if (outputs.verifyWith) {
    auto checked = refactor::selfCheck(analysis, *made, paths.templatePath,
                                       *outputs.verifyWith);
    if (!checked)
      return llvm::createStringError("self-check failed, nothing written: " +
                                     llvm::toString(checked.takeError()));
    note("self-check: " + *checked);
  }
  if (auto s = refactor::writeTemplateFiles(*made, paths.templatePath,
                                            paths.manifestPath);
      !s)
    return toLlvm(s.error());
  return refactor::wroteSummary(*made, paths);
}

} // namespace ktune::driver
