//===- ktune/Refactor/CudaParser.h - Parsing CUDA with Clang 19 -*- C++ -*-===//
//
// A CUDA file is parsed twice: once for the host and once for the device
// (code under `#ifdef __CUDA_ARCH__` is only seen by the device side). Both
// sides run concurrently, each on its own AST. Clang 19 knows CUDA up to
// 12.5; newer toolkits parse with two empty compatibility headers on the
// include path. Without a toolkit a small shim header stands in for the CUDA
// runtime declarations.
//
// Speed: system headers (cub, cuda_bf16.h) dominate parse time, so function
// bodies outside the main file and the project headers detection may follow
// kernels into are skipped, and the main file's preamble
// (its leading #include block) is precompiled once and cached on disk,
// keyed by the compile arguments and the preamble's text, and checked
// against the size and modification time of every header it read.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_REFACTOR_CUDAPARSER_H
#define KTUNE_REFACTOR_CUDAPARSER_H

#include "ktune/Refactor/HeaderFilter.h"

#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace clang {
class ASTContext;
}

namespace ktune::refactor {

enum class CudaSide { Host, Device };
std::string_view sideName(CudaSide side);

/// How the main file is compiled, from compile_commands.json or from the
/// arguments given after `--`.
struct CompileCommand {
  std::string file;              // the main file as given by the user
  std::string directory;         // directory relative paths refer to
  std::vector<std::string> args; // flags only: no compiler, no input file
  /// Commands from a compilation database are usually nvcc's: only the
  /// flags that carry meaning for parsing (-I, -D, -std, ...) are kept.
  /// Arguments given after `--` are passed to Clang as they are.
  bool fromDatabase = false;
  /// The database command's compiler as it names it ("nvcc",
  /// "/usr/local/cuda/bin/nvcc"); empty otherwise.
  std::string compiler;
};

struct ParserOptions {
  std::string cudaPath;       // empty: find the toolkit
  bool noCudaToolkit = false; // parse with the shim header instead
  std::string gpuArch = "sm_90";
  std::string resourceDir; // empty: $KTUNE_CLANG_RESOURCE_DIR, else the
                           // configured Clang resource dir
  std::string shareDir;    // empty: located from the executable
  std::string cacheDir;    // empty: no preamble cache
  /// Build a missing preamble before parsing (slower now, fast next time);
  /// otherwise parse without one and report the miss (ParseStats), so the
  /// caller can build it later (buildPreambles).
  bool buildPreambleOnMiss = true;
  bool skipHeaderBodies = true;
  /// The headers whose function bodies are kept (the kernels detection may
  /// follow there); null: no header's. analyzeFile sets it.
  std::shared_ptr<const HeaderFilter> headers;
};

/// Finds the CUDA toolkit: `explicitPath`, $CUDA_PATH, $CUDA_HOME, the path
/// configured at build time, /usr/local/cuda, then nvcc on $PATH.
std::optional<std::string> findCudaToolkit(const std::string &explicitPath);

/// Where ktune's data files live (cuda-compat/, cuda-shim/): $KTUNE_SHARE_DIR,
/// <executable>/../share/ktune, <executable>/../../share/ktune (a build
/// directory inside the source tree), or the source tree's share/ktune.
std::string findShareDir();

/// The default preamble cache: $KTUNE_CACHE_DIR/preamble,
/// $XDG_CACHE_HOME/ktune/preamble or ~/.cache/ktune/preamble.
std::string defaultCacheDir();

/// The full Clang command line for one side (argv[0] first, file last).
llvm::Expected<std::vector<std::string>>
clangCommandLine(const CompileCommand &command, const ParserOptions &options,
                 CudaSide side);

/// Called once per side with that side's AST; the two calls may run at the
/// same time on different threads.
using SideCallback = std::function<void(clang::ASTContext &, CudaSide)>;

struct ParseStats {
  double seconds[2] = {0, 0}; // per side, wall clock
  bool preambleReused[2] = {false, false};
  bool preambleMissed[2] = {false, false}; // not cached, not built
  /// Remarks on the parse: errors in unrelated host code carried past.
  std::vector<std::string> notes;
};

/// Parses the main file on both sides and calls `onAST` for each. A file
/// that does not compile yields an error whose message holds Clang's
/// diagnostics (file:line:col: error: ...) and, where it was judged, why the
/// first error matters; except when every error lies in the body of a host
/// function that is not a kernel, not called from one and launches none:
/// then `onAST` gets Clang's recovered AST and `stats->notes` says so.
llvm::Error parseBothSides(const CompileCommand &command,
                           const ParserOptions &options,
                           const SideCallback &onAST,
                           ParseStats *stats = nullptr);

/// Builds and caches the preambles of both sides (concurrently) without
/// analysing anything; what a later run of parseBothSides reuses.
llvm::Error buildPreambles(const CompileCommand &command,
                           const ParserOptions &options);

/// The message of parse errors: Clang's diagnostics, then one summary line.
class ParseError : public llvm::ErrorInfo<ParseError> {
public:
  static char ID;
  ParseError(std::string diagnostics, std::string summary)
      : Diagnostics(std::move(diagnostics)), Summary(std::move(summary)) {}
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override;
  const std::string &diagnostics() const { return Diagnostics; }
  const std::string &summary() const { return Summary; }

private:
  std::string Diagnostics, Summary;
};

} // namespace ktune::refactor

#endif
