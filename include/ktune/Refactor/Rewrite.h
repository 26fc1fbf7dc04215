//===- ktune/Refactor/Rewrite.h - Applying a plan -----------------*- C++
//-*-===//
//
// Turns a (validated) plan into source edits: each planned kernel becomes a
// template with one `int NAME = <original>` parameter per plan parameter,
// every site of the parameter's candidates is replaced consistently, device
// helpers that hold sites receive the parameter too (their calls pass it),
// host functions that launch the kernel become templates with the same
// defaulted parameters and pass them on, and the plan's constraints become
// static_asserts. A kernel that was no template and is launched nowhere in
// the files read is instantiated explicitly at its defaults, so its code
// stays in the compiled output. Edits are clang::tooling::Replacements,
// which reject overlaps; a kernel in a project header is rewritten there
// (headerEdits). The manifest entries describe the resulting templates.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_REFACTOR_REWRITE_H
#define KTUNE_REFACTOR_REWRITE_H

#include "ktune/Plan/Manifest.h"
#include "ktune/Plan/Plan.h"
#include "ktune/Refactor/Detection.h"
#include "ktune/Refactor/SourceFacts.h"

#include "clang/Tooling/Core/Replacement.h"
#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <vector>

namespace ktune::refactor {

/// Edits of several files: file index in SourceFacts::files -> that file's
/// edits (byte offsets in the file, the file's path).
using FileEdits = std::map<unsigned, clang::tooling::Replacements>;

struct RewriteResult {
  clang::tooling::Replacements replacements; // the main file's
  FileEdits headerEdits;                     // the headers' (index > 0)
  std::vector<ManifestKernel> kernels;
  /// Host functions that became templates (manifest/2 `launchers`).
  std::vector<ManifestLauncher> launchers;
  /// Things the user should know (a launch left at its defaults because
  /// its host function cannot become a template), "file:line: message".
  std::vector<std::string> notes;
};

struct RewriteOptions {
  /// Wrap each of the main file's host-only functions (facts.hostOnlyRanges,
  /// widened to whole lines) in `#ifndef __CUDACC_RTC__` ... `#endif`, so
  /// NVRTC, which refuses host code, compiles the template (`ktune run`);
  /// nvcc and clang never define that macro. Edits of the rewrite, so the
  /// `#line` marks keep __LINE__ after them too.
  bool guardHostCode = false;
};

/// Edits and manifest entries for `plan`. Errors (as ktune::Error inside
/// the llvm::Error, see toLLVMError) name the plan's JSON path and, where
/// there is one, the source location.
llvm::Expected<RewriteResult>
planRewrite(const SourceFacts &facts, const CandidateSet &candidates,
            const CandidateIndex &index, const Plan &plan,
            llvm::StringRef source, const RewriteOptions &options = {});

/// The rewritten source. After every edit that adds or removes lines, a
/// `#line N` directive gives the next original line its original number, so
/// __LINE__ (assert, abort macros) and diagnostics keep the original's lines.
llvm::Expected<std::string>
applyRewrite(llvm::StringRef source, const clang::tooling::Replacements &edits);

/// The same edits with those `#line` directives made part of them, for
/// output applied by other tools (clang-tidy fix-its, clang-apply-
/// replacements): applying the result gives exactly applyRewrite's text.
llvm::Expected<clang::tooling::Replacements>
withLineMarks(llvm::StringRef source,
              const clang::tooling::Replacements &edits);

/// withLineMarks for the main file's edits (`mainSource`'s) and every
/// header's (its text in `facts`): the edits of every file, by file index.
llvm::Expected<FileEdits> withLineMarks(const SourceFacts &facts,
                                        llvm::StringRef mainSource,
                                        const RewriteResult &rewrite);

/// ktune::Error -> llvm::Error with the text "where: message".
llvm::Error toLLVMError(const ktune::Error &error);

} // namespace ktune::refactor

#endif
