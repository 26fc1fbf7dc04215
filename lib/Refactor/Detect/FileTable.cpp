//===- FileTable.cpp - The files positions point into ---------------------===//
//
// The main file is file 0. A header enters the table the first time a fact
// is found in it, when it is no system header and the header filter lets it
// through; the table records how the header was included, so a rewritten
// copy can be placed where the same #include finds it.
//
//===----------------------------------------------------------------------===//

#include "DetectInternal.h"

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

std::optional<unsigned> Collector::fileIndex(FileID fid) {
  if (fid.isInvalid())
    return std::nullopt;
  if (auto it = FileIndexCache.find(fid); it != FileIndexCache.end())
    return it->second;
  std::optional<unsigned> &slot = FileIndexCache[fid];
  // A cached preamble holds the main file's leading directives (the macros
  // it defines) under a FileID of its own, at the same offsets.
  if (fid == SM.getPreambleFileID() && fid != Main)
    return slot = fileIndex(Main);
  if (fid == Main) {
    SourceFile main;
    main.path = File;
    main.absolutePath = absolutePathIn("", File);
    main.text = SM.getBufferData(Main).str();
    if (Out.files.empty()) {
      Out.files.push_back(std::move(main));
      FileIds.push_back(Main);
    }
    return slot = 0u;
  }
  if (!Headers)
    return std::nullopt;
  SourceLocation start = SM.getLocForStartOfFile(fid);
  OptionalFileEntryRef entry = SM.getFileEntryRefForID(fid);
  if (!entry || SM.isInSystemHeader(start))
    return std::nullopt;
  std::string name = entry->getName().str();
  std::string absolute = absolutePathIn("", name);
  if (!Headers->allows(name, absolute))
    return std::nullopt;
  for (unsigned i = 1; i < Out.files.size(); ++i)
    if (Out.files[i].absolutePath == absolute)
      return slot = i; // the same header entered again (no include guard)
  llvm::StringRef text = SM.getBufferData(fid);
  if (text.size() >= MaxFileBytes || Out.files.size() >= MaxFiles) {
    Out.notes.push_back(name + ": not followed (" +
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
  header.includedAs = includeSpelling(SM, SM.getIncludeLoc(fid));
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
  Out.files.push_back(std::move(header));
  FileIds.push_back(fid);
  return slot = static_cast<unsigned>(Out.files.size() - 1);
}

} // namespace ktune::refactor
