//===- ktune/Refactor/CompileCommand.h - How the source is parsed -*- C++
//-*-===//
//
// The flags stage 1 parses the original file with, the same for
// ktune-refactor and `ktune run`: a compilation database in the directory
// given with -p (plus any arguments after `--`); else the arguments after
// `--`; else a compile_commands.json found above the source, like
// clang-tidy; else no flags.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_REFACTOR_COMPILECOMMAND_H
#define KTUNE_REFACTOR_COMPILECOMMAND_H

#include "ktune/Refactor/CudaParser.h"
#include "ktune/Support/Error.h"

#include "llvm/Support/CommandLine.h"

#include <optional>
#include <string>
#include <vector>

namespace ktune::refactor {

/// Takes the compiler arguments after `--` off a command line, as Clang's
/// tools do (input files among them are dropped): `argc` then ends before
/// the `--`. nullopt when there is no `--`.
Expected<std::optional<std::vector<std::string>>>
takeArgsAfterDashDash(int &argc, const char *const *argv);

/// `buildPath` empty = no -p; `extraArgs` nullopt = no `--` given.
/// `notes` receives remarks (a file missing from the database).
Expected<CompileCommand>
compileCommandFor(const std::string &file, const std::string &buildPath,
                  const std::optional<std::vector<std::string>> &extraArgs,
                  std::vector<std::string> *notes = nullptr);

/// A compile command's flags in Clang's spelling.
struct TranslatedFlags {
  /// Include paths (absolute), -include files, macros, -std, -fopenmp;
  /// with `keepUnknown`, every other flag Clang may know.
  std::vector<std::string> args;
  /// Real GPU architectures named by -arch, -code, -gencode,
  /// --gpu-architecture, --cuda-gpu-arch or --offload-arch (`sm_90`).
  std::vector<std::string> gpuArchs;
  std::vector<std::string> dropped; // what has no meaning for parsing
  bool openmp = false;              // -fopenmp, also through -Xcompiler
};

/// Translates the flags of a compile command, nvcc's or a host compiler's:
/// -I/-isystem/-iquote/-idirafter/-include (relative paths resolved against
/// `directory`), -D/-U and -std in any of nvcc's spellings; -Xcompiler and
/// --compiler-options values like direct flags (nvcc preprocesses both
/// sides with them); architectures collected. Everything else is dropped
/// (with its value: `--threads 4`, `-Xptxas -v`), or with `keepUnknown`
/// passed on unless it is an nvcc-only flag (`--expt-relaxed-constexpr`).
TranslatedFlags translateCompileFlags(const std::vector<std::string> &args,
                                      const std::string &directory,
                                      bool keepUnknown = false);

/// nvcc's options spelled with their value as the next argument
/// (`--threads 4`, `-gencode arch=...`, `-Xcompiler -fopenmp`) joined into
/// one (`--threads=4`), so that Clang's reading of a command line does not
/// take the values for input files.
std::vector<std::string>
joinNvccOptionValues(const std::vector<std::string> &args);

/// The architecture the device side is parsed for: `preferred` when the
/// command names it or names none Clang 19 knows (up to sm_90a), else the
/// newest one it names that Clang knows. nullopt: use `preferred`.
std::optional<std::string> chooseGpuArch(const std::vector<std::string> &archs,
                                         const std::string &preferred);

/// The command line of a Clang tool as CommonOptionsParser reads it (the
/// sources, -p, --extra-arg, --extra-arg-before and the arguments after
/// `--`), with the compile command found by compileCommandFor: a tool's
/// other options never decide which argument is the source.
class ToolCommandLine {
public:
  /// Registers the options in `category`.
  explicit ToolCommandLine(llvm::cl::OptionCategory &category);

  /// Parses the whole command line; the error holds what llvm::cl would
  /// print, one line per problem. --help prints and exits.
  llvm::Error parse(int argc, const char *const *argv,
                    llvm::StringRef overview);

  const std::vector<std::string> &sources() const { return Sources; }

  /// The flags for `file`, --extra-arg-before and --extra-arg included.
  Expected<CompileCommand>
  compileCommand(const std::string &file,
                 std::vector<std::string> *notes = nullptr) const;

private:
  llvm::cl::list<std::string> SourceList;
  llvm::cl::opt<std::string> BuildPath;
  llvm::cl::list<std::string> ArgsAfter, ArgsBefore;
  std::vector<std::string> Sources;
  std::optional<std::vector<std::string>> AfterDashDash;
};

} // namespace ktune::refactor

#endif
