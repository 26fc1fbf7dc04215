//===- ktune/Driver/RefactorCommandLine.h - Stage 1 options -*- C++ -*-===//
//
// Option groups of ktune-refactor (llvm::cl), each registered in the tool's
// category as ParserCommandLine is, and what the tool writes once it has a
// plan: the plan for editing, the findings' reports and the template.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_DRIVER_REFACTORCOMMANDLINE_H
#define KTUNE_DRIVER_REFACTORCOMMANDLINE_H

#include "ktune/Planner/ChoosePlan.h"
#include "ktune/Refactor/ToolSupport.h"
#include "ktune/Tidy/Export.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <optional>
#include <string>

namespace ktune::driver {

/// -o, --out-dir and --manifest: where the template and its manifest go;
/// --verify: whether it is checked against the original first.
class OutputCommandLine {
public:
  explicit OutputCommandLine(llvm::cl::OptionCategory &category);
  /// refactor::outputPaths for `input`.
  Expected<refactor::OutputPaths> paths(const std::string &input) const;
  bool verify() const { return Verify; }

private:
  llvm::cl::opt<std::string> Output, OutDir, ManifestPath;
  llvm::cl::opt<bool> Verify;
};

/// --planner, --model and --planner-timeout: who writes the plan.
class PlannerCommandLine {
public:
  explicit PlannerCommandLine(llvm::cl::OptionCategory &category);
  planner::PlannerFlags flags() const;

private:
  llvm::cl::opt<std::string> Spec, Model;
  llvm::cl::opt<double> Timeout;
};

/// --export-fixes, --sarif and --warnings: the findings for other tools.
class ReportCommandLine {
public:
  explicit ReportCommandLine(llvm::cl::OptionCategory &category);
  /// Whether any report was asked for.
  bool any() const;
  /// The reports asked for; nullopt when none was.
  std::optional<tidy::ReportOptions> options(std::string toolVersion) const;

private:
  llvm::cl::opt<std::string> ExportFixes, Sarif;
  llvm::cl::opt<bool> Warnings;
};

/// The planner's request for what `analysis` found, for a `gpuArch` device.
planner::PlannerRequest plannerRequestFor(const refactor::Analysis &analysis,
                                          const std::string &gpuArch);

/// --plan's file, the planner's plan or the heuristic one, chosen as `ktune
/// run` chooses; the exchanges are saved in `auditDir`, the planner's
/// progress goes to `log`. Errors as choosePlan's.
std::expected<planner::ChosenPlan, std::vector<Error>>
choosePlanFor(const planner::PlannerRequest &request,
              const std::string &planFile, planner::Planner *planner,
              std::string auditDir,
              std::function<void(const std::string &)> log);

/// What ktune-refactor writes once the plan is chosen.
struct RefactorOutputs {
  std::string planFile; // --plan: named in plan errors
  std::string emitPlan; // the plan, for editing; empty: not written
  std::optional<tidy::ReportOptions> reports;
  refactor::OutputPaths paths; // templatePath empty: no template
  /// --verify: compile original and template with nvcc, and write nothing
  /// unless the default configuration's PTX is the original's.
  const refactor::ParserOptions *verifyWith = nullptr;
};

/// Writes the plan (emitPlan), the reports, then the template, its
/// manifest and the rewritten headers. Returns "wrote ..." (empty when no
/// template was asked for); `note` gets the rewriter's notes.
llvm::Expected<std::string>
writeRefactorOutputs(const refactor::Analysis &analysis,
                     const planner::ChosenPlan &chosen,
                     const RefactorOutputs &outputs,
                     const std::function<void(const std::string &)> &note);

} // namespace ktune::driver

#endif
