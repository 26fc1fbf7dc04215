//===- ktune/Refactor/HeaderFilter.h - Headers that may change --*- C++ -*-===//
//
// Which headers detection may follow a kernel into, read function bodies of,
// and rewrite. As clang-tidy's --header-filter: a regular expression
// searched in the header's name as Clang names it (the -I directory joined
// with the #include's spelling). Without one, the project's own headers:
// those under its -I (and -iquote) directories or the main file's
// directory. System headers (-isystem, the CUDA toolkit) never.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_REFACTOR_HEADERFILTER_H
#define KTUNE_REFACTOR_HEADERFILTER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class Regex;
}

namespace ktune::refactor {

class HeaderFilter {
public:
  /// No header at all (clang-tidy without --header-filter).
  HeaderFilter() = default;
  /// The default: headers under one of `roots` (absolute directories).
  static HeaderFilter under(std::vector<std::string> roots);
  /// --header-filter: headers whose name matches `regex` (and not
  /// `exclude`, clang-tidy's --exclude-header-filter, when given). `roots`
  /// still say where rewritten copies are placed. An invalid expression is
  /// an error.
  static llvm::Expected<HeaderFilter> matching(const std::string &regex,
                                               std::vector<std::string> roots,
                                               const std::string &exclude = "");

  /// `name` as Clang names the header, `absolute` its absolute path. The
  /// caller rules out system headers.
  bool allows(llvm::StringRef name, llvm::StringRef absolute) const;
  /// The project's include roots, absolute.
  const std::vector<std::string> &roots() const { return Roots; }
  /// What changes which bodies are parsed (for the preamble cache's key).
  std::string key() const;

private:
  std::string filterKey() const;

  std::vector<std::string> Roots;
  bool Default = false;
  std::string Pattern, ExcludePattern;
  std::shared_ptr<const llvm::Regex> Regex, Exclude;
};

/// The include roots of a Clang command line: its -I, -iquote and
/// --include-directory directories (relative ones taken from `directory`),
/// then the main file's directory; absolute, without duplicates.
std::vector<std::string> includeRoots(const std::vector<std::string> &args,
                                      const std::string &mainFile,
                                      const std::string &directory);

/// The path made absolute against `directory` (the current directory when
/// empty), without `.` and `..`.
std::string absolutePathIn(const std::string &directory,
                           const std::string &path);

/// True when `path` lies in directory `dir` or below (both absolute).
bool isUnder(llvm::StringRef path, llvm::StringRef dir);

} // namespace ktune::refactor

#endif
