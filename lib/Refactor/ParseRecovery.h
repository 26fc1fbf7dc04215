//===- ParseRecovery.h - Carrying on past errors in unrelated code -*- C++
//-*-===//
//
// Clang rejects some host code that nvcc compiles. When every error of a
// parse lies in the body of a host function that is neither a kernel, nor a
// function a kernel calls, nor a launcher, the recovered AST still holds
// everything ktune reads, and the analysis carries on (with a note naming
// the first error). An error anywhere else refuses the file.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_LIB_REFACTOR_PARSERECOVERY_H
#define KTUNE_LIB_REFACTOR_PARSERECOVERY_H

#include "clang/AST/ASTContext.h"
#include "clang/Basic/Diagnostic.h"

#include <string>
#include <vector>

namespace ktune::refactor {

struct ReportedError {
  clang::SourceLocation loc; // where Clang reported it (may be invalid)
  std::string text;          // "file:line:col: error: message"
  bool fatal = false;
};

/// Passes every diagnostic on to `next` and keeps the errors.
class ErrorRecorder : public clang::DiagnosticConsumer {
public:
  explicit ErrorRecorder(clang::DiagnosticConsumer &next) : Next(next) {}

  void BeginSourceFile(const clang::LangOptions &lo,
                       const clang::Preprocessor *pp) override;
  void EndSourceFile() override;
  void finish() override;
  void clear() override;
  void HandleDiagnostic(clang::DiagnosticsEngine::Level level,
                        const clang::Diagnostic &info) override;

  std::vector<ReportedError> Errors;

private:
  clang::DiagnosticConsumer &Next;
};

struct RecoveryVerdict {
  bool recoverable = false;
  /// When not: the first error in code that matters, and where it is
  /// ("k.cu:3:5: error: ... (in kernel 'k')").
  std::string blocking;
};

/// Judges the errors of a parse against its (recovered) AST.
RecoveryVerdict judgeErrors(clang::ASTContext &ctx,
                            const std::vector<ReportedError> &errors);

} // namespace ktune::refactor

#endif
