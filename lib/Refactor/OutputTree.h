//===- OutputTree.h - Where rewritten headers go ----------------*- C++ -*-===//
//
// A kernel in a project header is rewritten in a copy of the header, never
// in the original. The copy goes under the output's include directory at
// the path its #include spells (`DIR/include/flashinfer/norm.cuh` for a
// header found as "flashinfer/norm.cuh" under -I include), so that with
// `-I DIR/include` first on the include path every #include of it finds the
// copy. Moving a file changes what its quoted #includes find (they look
// beside the including file first): those that would now miss, or find
// something else, are re-spelled (to the copy's include path, to a path
// under a project include directory, or to the absolute path of the
// original). A header of the files read that includes a rewritten one
// beside itself is copied too, unchanged but for such re-spellings.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_LIB_REFACTOR_OUTPUTTREE_H
#define KTUNE_LIB_REFACTOR_OUTPUTTREE_H

#include "ktune/Refactor/Rewrite.h"
#include "ktune/Refactor/SourceFacts.h"

#include "llvm/Support/Error.h"

#include <functional>
#include <string>
#include <vector>

namespace ktune::refactor {

/// A header of the output tree.
struct HeaderCopy {
  unsigned fileIndex = 0;  // in SourceFacts::files
  std::string includePath; // relative to the output's include directory
  std::string text;
  bool rewritten = false; // false: copied for its #includes only
};

struct OutputTree {
  std::string mainText;
  std::vector<HeaderCopy> headers;
};

/// Whether a file exists (the file system by default; tests give their own).
using FileExists = std::function<bool(const std::string &absolutePath)>;

/// The path under the output's include directory where the same #include
/// finds the copy of header `fileIndex`: its spelling when it was found
/// under a project include root, else its path below the deepest root
/// holding it. An error for a header under no root.
llvm::Expected<std::string> includePathOf(const SourceFacts &facts,
                                          unsigned fileIndex);

/// One quoted #include of a text: the offset of its opening quote, the
/// length up to the closing quote included, and the spelling between them.
struct QuotedInclude {
  unsigned offset = 0, length = 0;
  std::string spelling;
};
std::vector<QuotedInclude> quotedIncludes(llvm::StringRef text);

/// The template's text and the header copies, from the edits of each file
/// (`marked`: with their #line marks, see withLineMarks).
llvm::Expected<OutputTree> buildOutputTree(const SourceFacts &facts,
                                           llvm::StringRef mainSource,
                                           const FileEdits &marked,
                                           const FileExists &exists = {});

} // namespace ktune::refactor

#endif
