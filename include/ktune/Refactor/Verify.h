//===- ktune/Refactor/Verify.h - Self-check of a template ---*- C++ -*-===//
//
// `ktune-refactor --verify`: before anything is written, the original and
// the template (with its rewritten headers, in a temporary directory) are
// compiled to PTX with nvcc and the project's flags, and every function of
// the original must come out the same from the template's default
// configuration (mangled names mapped back, as scripts/ptx-identical.py
// does). An output that does not compile, or compiles to other PTX, is
// refused.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_REFACTOR_VERIFY_H
#define KTUNE_REFACTOR_VERIFY_H

#include "ktune/Refactor/Refactorer.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace ktune::refactor {

/// nvcc of the toolkit `cudaPath` names, else of $CUDA_PATH or $CUDA_HOME,
/// else on $PATH, else the build's toolkit's; nullopt when there is none.
std::optional<std::string> findNvcc(const std::string &cudaPath);

/// The flags of the project's command that change what nvcc compiles:
/// include paths, -include files, macros, -std, -fopenmp and nvcc's
/// --expt-* switches.
std::vector<std::string> nvccFlagsFor(const CompileCommand &command);

struct VerifyOptions {
  std::string nvcc;
  std::string gpuArch = "sm_90";
  std::vector<std::string> flags; // nvccFlagsFor(the command)
  double timeoutSeconds = 600;    // per compilation
};

/// Compiles and compares as above: a line saying how many functions were
/// compared, or an error saying which function differs (and where) or what
/// nvcc said. `templatePath` is where the template would be written (its
/// headers go to include/ beside it). For tests, $KTUNE_VERIFY_TAMPER
/// (`FROM=>TO`) replaces the first FROM of the template's text with TO
/// before it is compiled: a self-check that must fail.
llvm::Expected<std::string> verifyTemplate(const Analysis &analysis,
                                           const TemplateOutput &out,
                                           const std::string &templatePath,
                                           const VerifyOptions &options);

/// verifyTemplate with the nvcc findNvcc finds for `parsing`'s toolkit,
/// its GPU architecture and the analysis' compile command: what
/// `ktune-refactor --verify` runs. An error too when there is no nvcc.
llvm::Expected<std::string> selfCheck(const Analysis &analysis,
                                      const TemplateOutput &out,
                                      const std::string &templatePath,
                                      const ParserOptions &parsing);

} // namespace ktune::refactor

#endif
