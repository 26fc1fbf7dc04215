//===- ParseInternal.h - The steps of parsing a CUDA file -------*- C++ -*-===//
//
// parseCudaFile (CudaParser.cpp) parses a file once per compilation side,
// in steps declared here, each in its own file:
//
//   NvccSyntax.cpp      spellings nvcc accepts and Clang does not
//   HeaderFilter.cpp    which headers may be read and rewritten, and which
//                       function bodies a parse skips (BodySkipper)
//   PreambleCache.cpp   precompiled preambles kept on disk
//   ParseRecovery.cpp   carrying on past errors in unrelated code
//   CompileFlags.cpp    nvcc's flags in Clang's spelling
//   CompileCommand.cpp  the compile command of a file
//
// Nothing here is part of ktune's public API.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_LIB_REFACTOR_PARSE_PARSEINTERNAL_H
#define KTUNE_LIB_REFACTOR_PARSE_PARSEINTERNAL_H

#include "ktune/Refactor/HeaderFilter.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclBase.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Serialization/PCHContainerOperations.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ktune::refactor {

// --- Spellings nvcc accepts and Clang does not ------------------------------
//
// nvcc reads a launch written with spaced chevrons, `k << < grid, block >> >
// (args)`; Clang's lexer forms `<<<` and `>>>` only from adjacent
// characters. The main file is parsed from a copy where such chevrons are
// joined, each replacement of the same length as what it replaces, so every
// offset, and every line but the chevrons' own, is unchanged.

/// `text` with spaced launch chevrons joined (`<< <` -> `<<< `, and the
/// matching `>> >` -> `>>> `) and braced launch arguments parenthesised
/// (`{x, y, 1}` -> `(x, y, 1)`); nullopt when there are none.
std::optional<std::string> joinSpacedLaunchChevrons(llvm::StringRef text);
/// `__host__` blanked out of explicit specialisations `__host__ __device__`
/// of a function template the same text declares `__device__` only.
std::optional<std::string> matchSpecializationTargets(llvm::StringRef text);
/// `__host__` blanked out of declarations `__host__ __device__` of CUDA
/// runtime functions that Clang's wrapper declares `__device__` only
/// (`__assertfail`, which projects declare as CUDA's CRT headers do).
std::optional<std::string> matchRuntimeDeclarations(llvm::StringRef text);
/// All of the above: the text Clang parses in place of a project file's.
std::optional<std::string> nvccSpellings(llvm::StringRef text);

// --- Which function bodies a parse skips ------------------------------------
//
// System headers (cub, cuda_bf16.h) dominate parse time, and their function
// bodies are never analysed: a parse skips them. The main file's bodies are
// kept, and in the headers detection may follow kernels into, the kernels'
// bodies, those of host functions that spell a launch (launchers the
// main file may call), short host functions returning an integer (a grid
// helper's `(n + THREADS - 1) / THREADS`) and the constructors of classes
// that are no templates (a launch-parameter struct's fields). Other bodies in
// those headers (device helpers, other host code) are skipped too: read, they
// would be instantiated with the kernels, and Clang refuses some template code
// nvcc takes
// (`X<T>::f<N>()` without `template`).

class BodySkipper {
public:
  /// `headers` null: every header body is skipped.
  explicit BodySkipper(const HeaderFilter *headers) : Headers(headers) {}

  /// Whether the body of `d` (a function or function template) is skipped.
  bool skip(const clang::SourceManager &sm, const clang::Decl *d);

private:
  const HeaderFilter *Headers;
  llvm::DenseMap<clang::FileID, bool> Skip; // per file
  /// Host functions of the project's headers whose bodies are kept because
  /// they launch (directly or through others): a body naming one is kept.
  llvm::StringSet<> Launchers;
  llvm::DenseMap<const clang::CXXRecordDecl *, bool> LaunchingClasses;
  bool inLaunchingClass(const clang::SourceManager &sm,
                        const clang::CXXMethodDecl *md);
};

// --- Carrying on past errors in unrelated code ------------------------------
//
// Clang rejects some host code that nvcc compiles. When every error of a
// parse lies in the body of a host function that is neither a kernel, nor a
// function a kernel calls, nor a launcher, the recovered AST still holds
// everything ktune reads, and the analysis carries on (with a note naming
// the first error). An error anywhere else refuses the file.

struct ReportedError {
  clang::SourceLocation loc; // where Clang reported it (may be invalid)
  std::string text;          // "file:line:col: error: message"
  bool fatal = false;
  /// Clang recovers as nvcc reads the code (a `template` keyword nvcc does
  /// not require, supplied): nothing the analysis reads is lost.
  bool readAsNvcc = false;
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

// --- Precompiled preambles kept on disk -------------------------------------
//
// The leading #include block of a CUDA file (cuda_bf16.h, cub, ...) costs
// seconds to parse and rarely changes. It is precompiled with Clang's
// PrecompiledPreamble machinery, moved into a cache directory, and reused by
// later runs while the preamble text, the compile arguments and every header
// it read (size and modification time) are unchanged.

enum class PreambleUse {
  None,   // no preamble (none in the file, no cache, or it failed)
  Reused, // a cached preamble was used
  Built,  // built now, cached and used
  Missed, // none cached and not built (the caller builds it later)
};

/// Makes `invocation` parse its main file with a cached preamble; when there
/// is none, builds and stores it first if `buildOnMiss`. `argsKey`
/// identifies everything besides the main file's text that changes the
/// preamble's meaning (`headers`' key included: the bodies of the headers it
/// lets through are kept). Never fails the parse: on any problem the
/// invocation is left unchanged.
PreambleUse
configurePreamble(clang::CompilerInvocation &invocation,
                  const llvm::MemoryBuffer &mainBuffer,
                  const std::string &cacheDir, const std::string &argsKey,
                  std::shared_ptr<clang::PCHContainerOperations> pchOps,
                  bool buildOnMiss, const HeaderFilter *headers = nullptr);

} // namespace ktune::refactor

#endif
