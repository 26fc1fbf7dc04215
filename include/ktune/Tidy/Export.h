//===- ktune/Tidy/Export.h - Findings for editors and CI --------*- C++ -*-===//
//
// The findings of one file in three forms: clang-tidy's --export-fixes YAML
// (for clang-apply-replacements), SARIF 2.1.0 (VS Code's SARIF viewer,
// GitHub code scanning) and clang-style `file:line:col: warning:` lines
// (any editor's compiler problem matcher).
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_TIDY_EXPORT_H
#define KTUNE_TIDY_EXPORT_H

#include "ktune/Refactor/Refactorer.h"
#include "ktune/Tidy/Findings.h"

#include "clang/Tooling/Core/Replacement.h"

#include <string>
#include <vector>

namespace ktune::tidy {

/// clang::tooling::TranslationUnitDiagnostics as YAML. One diagnostic per
/// finding; the edits of the whole plan (`planEdits`, what `ktune-refactor
/// -o` writes) ride on the first one, so that clang-apply-replacements
/// produces exactly the -o output, in every file the plan changes (the
/// single-parameter fixes of one kernel overlap and cannot be applied
/// together). File paths are made absolute against `buildDirectory`.
std::string exportFixesYaml(const std::string &mainFile,
                            const std::vector<Finding> &findings,
                            const refactor::FileEdits &planEdits,
                            const std::string &buildDirectory);

/// A SARIF 2.1.0 log: one result per finding with its rule id, location,
/// message, related locations (the coupled sites) and its
/// single-parameter fix; every file a location or fix names is an artifact
/// (the main file first).
std::string sarifLog(const std::string &mainFile,
                     const std::vector<Finding> &findings,
                     const std::string &toolVersion);

/// `file:line:col: warning: message [check]` lines, each followed by its
/// notes.
std::string plainDiagnostics(const std::vector<Finding> &findings);

struct ReportOptions {
  std::string exportFixesPath; // empty: none
  std::string sarifPath;       // empty: none
  bool warnings = false;       // plain diagnostics on stderr
  std::string toolVersion;
};

/// What `ktune-refactor --export-fixes/--sarif/--warnings` produce for
/// `plan` applied to `analysis`. Files are written atomically.
llvm::Error writeReports(const refactor::Detection &analysis, const Plan &plan,
                         const ReportOptions &options);

} // namespace ktune::tidy

#endif
