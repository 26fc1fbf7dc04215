//===- FileTable.cpp - The files positions point into ---------------------===//
//
// The main file is file 0. A header enters the table the first time a fact
// is found in it, when it is no system header and the header filter lets it
// through; the table records how the header was included, so a rewritten
// copy can be placed where the same #include finds it.
//
//===----------------------------------------------------------------------===//

#include "DetectInternal.h"

#include "llvm/Support/MemoryBuffer.h"

#include "llvm/Support/Path.h"

namespace ktune::refactor {

using namespace clang;

namespace {

/// The file name an #include directive spells, read off the directive's
/// line at `loc` (the include location Clang records for the file it
/// opened): `"a/b.h"` or `<a/b.h>`, without quotes or brackets.
std::string includeSpelling(const SourceManager &sm, SourceLocation loc) {
  if (loc.isInvalid())
    return {};
  loc = sm.getExpansionLoc(loc);
  auto [fid, offset] = sm.getDecomposedLoc(loc);
  bool invalid = false;
  llvm::StringRef buffer = sm.getBufferData(fid, &invalid);
  if (invalid || offset > buffer.size())
    return {};
  // The directive's line: the one holding `loc`, or the one before it when
  // `loc` is the start of the next line.
  for (int back = 0; back < 2; ++back) {
    size_t start = buffer.rfind('\n', offset); // the last one before it
    start = start == llvm::StringRef::npos ? 0 : start + 1;
    size_t end = buffer.find('\n', start);
    llvm::StringRef line = buffer.slice(start, end);
    size_t hash = line.find('#');
    size_t quote = line.find_first_of("\"<", hash);
    if (hash != llvm::StringRef::npos && quote != llvm::StringRef::npos &&
        line.substr(hash + 1).ltrim().starts_with("include")) {
      char close = line[quote] == '"' ? '"' : '>';
      size_t stop = line.find(close, quote + 1);
      if (stop != llvm::StringRef::npos)
        return line.slice(quote + 1, stop).str();
    }
    if (start == 0)
      break;
    offset = static_cast<unsigned>(start - 1);
  }
  return {};
}

} // namespace

/// Whether `read` is `original` with at most launch spellings changed in
/// place: every differing character a chevron, a bracket or a space.
static bool onlyLaunchSpellingsDiffer(llvm::StringRef original,
                                      llvm::StringRef read) {
  if (original.size() != read.size() || original == read)
    return false;
  llvm::StringRef launch = " <>{}()";
  for (size_t i = 0; i < read.size(); ++i)
    if (original[i] != read[i] &&
        (!launch.contains(original[i]) || !launch.contains(read[i])))
      return false;
  return true;
}

std::optional<unsigned> fileIndex(DetectContext &c, FileID fid) {
  if (fid.isInvalid())
    return std::nullopt;
  if (auto it = c.FileIndexCache.find(fid); it != c.FileIndexCache.end())
    return it->second;
  std::optional<unsigned> &slot = c.FileIndexCache[fid];
  // A cached preamble holds the main file's leading directives (the macros
  // it defines) under a FileID of its own, at the same offsets.
  if (fid == c.SM.getPreambleFileID() && fid != c.Main)
    return slot = fileIndex(c, c.Main);
  if (fid == c.Main) {
    SourceFile main;
    main.path = c.File;
    main.absolutePath = absolutePathIn("", c.File);
    main.text = c.SM.getBufferData(c.Main).str();
    if (c.Sink.Facts.files.empty()) {
      c.Sink.Facts.files.push_back(std::move(main));
      c.FileIds.push_back(c.Main);
    }
    return slot = 0u;
  }
  if (!c.Headers)
    return std::nullopt;
  SourceLocation start = c.SM.getLocForStartOfFile(fid);
  OptionalFileEntryRef entry = c.SM.getFileEntryRefForID(fid);
  if (!entry || c.SM.isInSystemHeader(start))
    return std::nullopt;
  std::string name = entry->getName().str();
  std::string absolute = absolutePathIn("", name);
  if (!c.Headers->allows(name, absolute))
    return std::nullopt;
  for (unsigned i = 1; i < c.Sink.Facts.files.size(); ++i)
    if (c.Sink.Facts.files[i].absolutePath == absolute)
      return slot = i; // the same header entered again (no include guard)
  llvm::StringRef text = c.SM.getBufferData(fid);
  if (text.size() >= MaxFileBytes || c.Sink.Facts.files.size() >= MaxFiles) {
    c.Sink.note(name + ": not followed (" +
                (text.size() >= MaxFileBytes
                     ? std::string("16 MiB or larger")
                     : "more than 255 headers to read") +
                ")");
    return std::nullopt;
  }
  SourceFile header;
  header.path = name;
  header.absolutePath = absolute;
  header.text = text.str();
  // Read with nvcc's launch spellings rewritten in place (Parse/NvccSyntax:
  // chevrons joined, braces parenthesised): the output keeps the project's
  // own text.
  if (auto original = llvm::MemoryBuffer::getFile(absolute))
    if (onlyLaunchSpellingsDiffer((*original)->getBuffer(), text))
      header.text = (*original)->getBuffer().str();
  header.includedAs = includeSpelling(c.SM, c.SM.getIncludeLoc(fid));
  // Clang names a header by the directory it was found in joined with the
  // spelling: what is left of the name is that directory.
  llvm::StringRef n = name;
  if (!header.includedAs.empty() && n.ends_with(header.includedAs) &&
      n.size() > header.includedAs.size() &&
      n[n.size() - header.includedAs.size() - 1] == '/')
    header.foundUnder =
        absolutePathIn("", n.drop_back(header.includedAs.size() + 1).str());
  else
    header.foundUnder = llvm::sys::path::parent_path(absolute).str();
  c.Sink.Facts.files.push_back(std::move(header));
  c.FileIds.push_back(fid);
  return slot = static_cast<unsigned>(c.Sink.Facts.files.size() - 1);
}

} // namespace ktune::refactor
