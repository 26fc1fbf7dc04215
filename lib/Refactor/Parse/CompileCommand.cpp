//===- CompileCommand.cpp - Flags for parsing the original source ---------===//
//
// The compile command of a file: the arguments after `--`, a compilation
// database (compileCommandFor), or a Clang tool's command line
// (ToolCommandLine); nvcc's flags are translated by CompileFlags.cpp.
//
//===----------------------------------------------------------------------===//

#include "ktune/Refactor/CompileCommand.h"
#include "ktune/Refactor/ToolSupport.h"

#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

namespace ktune::refactor {

Expected<std::optional<std::vector<std::string>>>
takeArgsAfterDashDash(int &argc, const char *const *argv) {
  const char *const *dashDash =
      std::find_if(argv, argv + argc,
                   [](const char *a) { return llvm::StringRef(a) == "--"; });
  if (dashDash == argv + argc)
    return std::nullopt;
  // nvcc's separate option values would read as input files below.
  std::vector<std::string> after =
      joinNvccOptionValues({dashDash + 1, argv + argc});
  std::vector<const char *> line(argv, dashDash + 1);
  for (const std::string &a : after)
    line.push_back(a.c_str());
  int lineArgc = static_cast<int>(line.size());
  // Clang's own reading of `--` (what CommonOptionsParser does).
  std::string error;
  auto fixed = clang::tooling::FixedCompilationDatabase::loadFromCommandLine(
      lineArgc, line.data(), error);
  if (!fixed)
    return makeError("the arguments after -- are not a compile command" +
                         (error.empty() ? std::string() : ": " + error),
                     "--");
  argc = static_cast<int>(dashDash - argv);
  // {"clang-tool", flags..., file}
  auto command = fixed->getCompileCommands("-").front().CommandLine;
  return std::vector<std::string>(command.begin() + 1, command.end() - 1);
}

Expected<CompileCommand>
compileCommandFor(const std::string &file, const std::string &buildPath,
                  const std::optional<std::vector<std::string>> &extraArgs,
                  std::vector<std::string> *notes) {
  CompileCommand command;
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
  std::string absolute = absolutePath(file);
  if (notes && std::find(files.begin(), files.end(), absolute) == files.end())
    notes->push_back(file + " is not in the compilation database; its flags "
                            "are taken from a similar file's command");
  command.directory = commands.front().Directory;
  command.fromDatabase = true;
  const auto &line = commands.front().CommandLine;
  if (!line.empty())
    command.compiler = line.front();
  for (size_t i = 1; i < line.size(); ++i) {
    if (line[i] == commands.front().Filename || samePath(line[i], file))
      continue;
    command.args.push_back(line[i]);
  }
  if (extraArgs)
    command.args.insert(command.args.end(), extraArgs->begin(),
                        extraArgs->end());
  return command;
}

ToolCommandLine::ToolCommandLine(llvm::cl::OptionCategory &category)
    : SourceList(llvm::cl::Positional,
                 llvm::cl::desc("<source0> [... <sourceN>]"),
                 llvm::cl::OneOrMore, llvm::cl::cat(category)),
      BuildPath("p", llvm::cl::desc("Build path"), llvm::cl::Optional,
                llvm::cl::cat(category)),
      ArgsAfter(
          "extra-arg",
          llvm::cl::desc(
              "Additional argument to append to the compiler command line"),
          llvm::cl::cat(category)),
      ArgsBefore(
          "extra-arg-before",
          llvm::cl::desc(
              "Additional argument to prepend to the compiler command line"),
          llvm::cl::cat(category)) {}

llvm::Error ToolCommandLine::parse(int argc, const char *const *argv,
                                   llvm::StringRef overview) {
  auto afterDashDash = takeArgsAfterDashDash(argc, argv);
  if (!afterDashDash)
    return llvm::createStringError(afterDashDash.error().str());
  AfterDashDash = std::move(*afterDashDash);
  std::string errors;
  llvm::raw_string_ostream os(errors);
  if (!llvm::cl::ParseCommandLineOptions(argc, argv, overview, &os))
    return llvm::createStringError(os.str());
  Sources.assign(SourceList.begin(), SourceList.end());
  return llvm::Error::success();
}

Expected<CompileCommand>
ToolCommandLine::compileCommand(const std::string &file,
                                std::vector<std::string> *notes) const {
  auto command = compileCommandFor(file, BuildPath, AfterDashDash, notes);
  if (!command)
    return command;
  command->args.insert(command->args.begin(), ArgsBefore.begin(),
                       ArgsBefore.end());
  command->args.insert(command->args.end(), ArgsAfter.begin(), ArgsAfter.end());
  return command;
}

} // namespace ktune::refactor
