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
