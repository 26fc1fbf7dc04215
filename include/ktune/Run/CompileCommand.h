//===- ktune/Run/CompileCommand.h - How the source is parsed ----*- C++ -*-===//
//
// The flags stage 1 parses the original file with, chosen as ktune-refactor
// chooses them: a compilation database in the directory given with -p; else
// the arguments after `--`; else a compile_commands.json found above the
// source; else no flags.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_RUN_COMPILECOMMAND_H
#define KTUNE_RUN_COMPILECOMMAND_H

#include "ktune/Refactor/CudaParser.h"
#include "ktune/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace ktune::run {

/// `buildPath` empty = no -p; `extraArgs` nullopt = no `--` given.
/// `notes` receives remarks (a file missing from the database).
Expected<refactor::CompileCommand>
compileCommandFor(const std::string &file, const std::string &buildPath,
                  const std::optional<std::vector<std::string>> &extraArgs,
                  std::vector<std::string> *notes = nullptr);

} // namespace ktune::run

#endif
