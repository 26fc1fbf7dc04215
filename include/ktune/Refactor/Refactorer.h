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
#include "ktune/Refactor/SourceFacts.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace ktune::refactor {

struct Analysis {
  std::string file;   // as given
  std::string source; // its text when analysed
  SourceFacts facts;
  CandidateSet candidates;
  CandidateIndex index;
  ParseStats stats;
};

/// Parses `command.file` on both sides and finds its candidates.
llvm::Expected<Analysis> analyzeFile(const CompileCommand &command,
                                     const ParserOptions &options);

/// The built-in plan for an analysis (ktune::heuristicPlan, with the source
/// so that names never collide with identifiers in it).
Plan defaultPlan(const Analysis &analysis);

struct TemplateOutput {
  std::string text;  // the template source
  Manifest manifest; // source/original/sha256 filled in
  std::vector<std::string> notes;
};

/// Checks `plan` (validatePlan: plans are untrusted), rewrites the source
/// and describes the result. `templatePath` and `manifestPath` are where
/// the caller will write them (the manifest names the template relative to
/// itself). Plan errors are one per line, "plan: <JSON path>: message".
llvm::Expected<TemplateOutput> makeTemplate(const Analysis &analysis,
                                            const Plan &plan,
                                            const std::string &templatePath,
                                            const std::string &manifestPath,
                                            const std::string &planOrigin);

} // namespace ktune::refactor

#endif
