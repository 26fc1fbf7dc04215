//===- ktune/Refactor/Refactorer.h - Stage 1 end to end ---------*- C++ -*-===//
//
// What `ktune-refactor` does, as a library: analyse a CUDA file (parse both
// sides, collect facts, group candidates), then turn a plan into the
// template source and its manifest. Files are written by the caller.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_REFACTOR_REFACTORER_H
#define KTUNE_REFACTOR_REFACTORER_H

#include "ktune/Plan/Candidates.h"
#include "ktune/Plan/Manifest.h"
#include "ktune/Plan/Plan.h"
#include "ktune/Refactor/CudaParser.h"
#include "ktune/Refactor/Detection.h"
#include "ktune/Refactor/Rewrite.h"
#include "ktune/Refactor/SourceFacts.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ktune::refactor {

/// A file's detection, with how it was parsed.
struct Analysis : Detection {
  ParseStats stats;
  CompileCommand command; // what it was parsed with
  /// Every macro either side's parse knew at its end (headers, system
  /// headers, the command line): no new parameter may take such a name.
  std::set<std::string> macros;
};

/// The headers analysis follows kernels into (see HeaderFilter.h): those
/// `regex` matches (--header-filter), else (nullopt) those under the
/// project's include directories (-I, -iquote in the compile command) and
/// the main file's directory.
llvm::Expected<std::shared_ptr<const HeaderFilter>>
headerFilterFor(const CompileCommand &command, const ParserOptions &options,
                const std::optional<std::string> &regex);

/// Parses `command.file` on both sides and finds its candidates, following
/// kernels into the headers `options.headers` lets through (the default of
/// headerFilterFor when null).
llvm::Expected<Analysis> analyzeFile(const CompileCommand &command,
                                     const ParserOptions &options,
                                     const CandidateOptions &candidates = {});

/// A project header of the output: rewritten, or copied unchanged but for
/// its #include spellings (it includes a rewritten one beside itself).
struct HeaderOutput {
  std::string path;     // where it is written: <template dir>/include/...
  std::string original; // the header it was made from, as Clang named it
  std::string text;
  bool rewritten = true;
};

struct TemplateOutput {
  std::string text;  // the template source
  Manifest manifest; // source/original/sha256, files, include_dirs, compile
  std::vector<std::string> notes;
  /// Headers to write beside the template; empty when the plan changes only
  /// the main file.
  std::vector<HeaderOutput> headers;
};

/// Checks `plan` (validatePlan: plans are untrusted), rewrites the source
/// and describes the result. `templatePath` and `manifestPath` are where
/// the caller will write them (the manifest names the template relative to
/// itself); rewritten headers go to `include/` beside the template (see
/// Rewrite/OutputTree.cpp), and no output may be one of the files read. Plan
/// errors are one per line, "plan: <JSON path>: message".
llvm::Expected<TemplateOutput>
makeTemplate(const Analysis &analysis, const Plan &plan,
             const std::string &templatePath, const std::string &manifestPath,
             const std::string &planOrigin, const RewriteOptions &options = {});

} // namespace ktune::refactor

#endif
