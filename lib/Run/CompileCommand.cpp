//===- CompileCommand.cpp - Flags for parsing the original source ---------===//
#include "ktune/Run/CompileCommand.h"

#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>

namespace ktune::run {

namespace {

std::string normalised(const std::string &path) {
  llvm::SmallString<256> p(path);
  llvm::sys::fs::make_absolute(p);
  llvm::sys::path::remove_dots(p, /*remove_dot_dot=*/true);
  return std::string(p);
}

} // namespace

Expected<refactor::CompileCommand>
compileCommandFor(const std::string &file, const std::string &buildPath,
                  const std::optional<std::vector<std::string>> &extraArgs,
                  std::vector<std::string> *notes) {
  refactor::CompileCommand command;
  command.file = file;
  if (buildPath.empty() && extraArgs) {
    command.args = *extraArgs;
    return command;
  }

  std::unique_ptr<clang::tooling::CompilationDatabase> database;
  std::string error;
  if (!buildPath.empty()) {
    // The database must be in that directory (not found in a parent).
    database = clang::tooling::CompilationDatabase::loadFromDirectory(buildPath,
                                                                      error);
    if (!database)
      return makeError("cannot load a compilation database from '" + buildPath +
                           "': " + error,
                       "-p");
  } else {
    database =
        clang::tooling::CompilationDatabase::autoDetectFromSource(file, error);
    if (!database)
      return command; // no database anywhere above: no flags
  }
  // Like clang-tidy: a file missing from the database borrows the flags of
  // the most similar file in it.
  auto files = database->getAllFiles();
  database = clang::tooling::inferMissingCompileCommands(std::move(database));
  auto commands = database->getCompileCommands(file);
  if (commands.empty())
    return makeError("no compile command for " + file +
                     " in the compilation database");
  std::string absolute = normalised(file);
  if (notes && std::find(files.begin(), files.end(), absolute) == files.end())
    notes->push_back(file + " is not in the compilation database; its flags "
                            "are taken from a similar file's command");
  command.directory = commands.front().Directory;
  command.fromDatabase = true;
  const auto &line = commands.front().CommandLine;
  for (size_t i = 1; i < line.size(); ++i) {
    if (line[i] == commands.front().Filename || normalised(line[i]) == absolute)
      continue;
    command.args.push_back(line[i]);
  }
  if (extraArgs)
    command.args.insert(command.args.end(), extraArgs->begin(),
                        extraArgs->end());
  return command;
}

} // namespace ktune::run
