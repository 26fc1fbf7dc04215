//===- ktune/Cuda/Nvcc.h - The project's compiler, run by ktune -*- C++ -*-===//
//
// Everything ktune knows about calling nvcc, shared by the two places that
// do: launcher modules (LauncherModule.h: a shared object per configuration)
// and the nvcc backend of kernel mode (NvccCompiler.h: an object holding many
// instantiations). It finds nvcc, turns a project's compile command into
// flags fit for ktune's own builds (architecture, output and dependency
// flags replaced), builds the argv (the rewritten headers' include
// directories first), runs it under a deadline and keeps the first error
// lines. It also translates flags between nvcc's spelling and NVRTC's, so
// the same project flags reach both backends.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_CUDA_NVCC_H
#define KTUNE_CUDA_NVCC_H

#include "ktune/Plan/CompileDatabase.h"
#include "ktune/Plan/Manifest.h"
#include "ktune/Support/Error.h"

#include <string>
#include <vector>

namespace ktune {

/// nvcc as found: $CUDA_HOME/bin/nvcc, $CUDA_PATH/bin/nvcc, the build's
/// toolkit, else "nvcc".
std::string findNvcc();

/// "nvcc 13.0" (from `nvcc --version`, asked once per path), or
/// "nvcc unknown" when it does not answer.
std::string nvccVersionString(const std::string &nvcc);

/// The project's flags from a compile command, fit for a ktune build:
/// architecture, output, dependency, input and Clang-only CUDA flags
/// (--cuda-path, -x cuda, ...) dropped; relative include directories made
/// absolute. From a host compiler (g++, clang++) only -I/-isystem/-D/-U/-std
/// are kept.
std::vector<std::string> projectNvccFlags(const CompileCommandInfo &compile);

/// How ktune calls nvcc for one build.
struct NvccCommand {
  std::string nvcc;                     // empty: findNvcc()
  std::string arch = "sm_90";           // sm_XY (code for that GPU)
  std::vector<std::string> includeDirs; // absolute, first on the path
  /// Absolute; searched by quoted #includes only (nvccQuoteDir,
  /// CompileDatabase.h).
  std::vector<std::string> quoteDirs;
  std::vector<std::string> projectFlags; // projectNvccFlags(...)
  std::vector<std::string> extraFlags;   // the spec's, in nvcc's spelling
  std::string templateDir;               // -I after the project's flags
};

enum class NvccOutput {
  SharedModule, // -shared -Xcompiler -fPIC: a module the worker dlopens
  Object,       // -c: host object with the device code embedded
};

/// nvcc's argv: nvcc, -I include dirs, -std=c++17 and -O3 unless the
/// project sets them, the project's flags, the extra flags, -I template
/// dir, the architecture, -Xptxas -v (registers and spills), the output.
std::vector<std::string> nvccArgv(const NvccCommand &command, NvccOutput kind,
                                  const std::string &source,
                                  const std::string &output);

struct NvccRun {
  bool ok = false;
  bool timedOut = false;
  std::string log; // stderr, then stdout
  double seconds = 0;
};

/// Runs nvcc (its own process group, killed at the deadline). Errors only
/// when it cannot be started.
Expected<NvccRun> runNvcc(const std::vector<std::string> &argv,
                          double timeoutSeconds);

/// Flags in nvcc's spelling (a project's, or a spec's written for nvcc)
/// translated for NVRTC: -I/-isystem to --include-path, -Xptxas to
/// --ptxas-options, --use_fast_math, -fmad/--ftz/--prec-* and
/// -maxrregcount to NVRTC's names; flags that only concern the host or the
/// build (-O3, -Xcompiler, --threads, -g, ...) dropped and listed. Flags
/// that change what the device code means but that NVRTC rejects
/// (--expt-relaxed-constexpr, --extended-lambda, ...) are listed as
/// unsupported: the build must go to nvcc. Anything else is passed on as it
/// is (NVRTC refuses what it does not know, and the automatic choice then
/// takes nvcc).
struct NvrtcFlags {
  std::vector<std::string> options;
  std::vector<std::string> dropped;
  std::vector<std::string> unsupported;
};
NvrtcFlags nvrtcOptionsFromNvccFlags(const std::vector<std::string> &flags);

/// The other way, for a spec's compile_options given in NVRTC's spelling:
/// --include-path=X to -IX, --ptxas-options=X to -Xptxas X, --maxrregcount
/// and --gpu-architecture handled; the rest is passed on.
std::vector<std::string>
nvccFlagsFromNvrtcOptions(const std::vector<std::string> &options);

} // namespace ktune

#endif
