//===- ktune/Plan/CompileDatabase.h - A project's compile command -*- C++
//-*-===//
//
// The nvcc backend and launcher modules build with the project's own flags.
// They come from the manifest's "compile", or from the build directory's
// compile_commands.json (`-p build/`) without Clang: stage 2 reads the file
// itself.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_PLAN_COMPILEDATABASE_H
#define KTUNE_PLAN_COMPILEDATABASE_H

#include "ktune/Plan/Manifest.h"
#include "ktune/Support/Error.h"

#include <string>
#include <vector>

namespace ktune {

/// The compile command of `file` in `buildDir`/compile_commands.json
/// ("arguments", or a "command" line split as a shell would), matched by
/// path, else by file name. The compiler is the command's first word; the
/// arguments leave out the compiler and the file.
Expected<CompileCommandInfo>
compileCommandFromDatabase(const std::string &buildDir,
                           const std::string &file);

/// A command line split into words as a POSIX shell would (quotes and
/// backslashes group; nothing is expanded).
std::vector<std::string> splitCommandLine(const std::string &line);

/// nvcc's flags that make `dir` searched by quoted #includes only, as the
/// including file's own directory is: a directory given as -I is also
/// searched for <...> and can hide a system header (a project's
/// `features.h` hides glibc's). nvcc has no -iquote; its host
/// preprocessor, which preprocesses both sides, does. A directory whose
/// name has a comma (which -Xcompiler would split) is given as -I.
std::vector<std::string> nvccQuoteDir(const std::string &dir);

} // namespace ktune

#endif
