//===- ArchRegions.cpp - Code one compilation side does not see -----------===//

#include "ArchRegions.h"

#include "clang/Basic/IdentifierTable.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

namespace ktune::tidy {

bool ArchRegions::contains(unsigned offset) const {
  for (const auto &[begin, end] : spans)
    if (begin <= offset && offset < end)
      return true;
  return false;
}

bool ArchRegions::contains(const std::string &header, unsigned offset) const {
  auto it = headerSpans.find(header);
  if (it == headerSpans.end())
    return false;
  for (const auto &[begin, end] : it->second)
    if (begin <= offset && offset < end)
      return true;
  return false;
}

static bool isArch(const Token &name) {
  const IdentifierInfo *id = name.getIdentifierInfo();
  return id && id->getName() == "__CUDA_ARCH__";
}

void ArchConditionTracker::If(SourceLocation loc, SourceRange condition,
                              ConditionValueKind) {
  note(loc, mentionsArch(condition));
}

void ArchConditionTracker::Elif(SourceLocation, SourceRange condition,
                                ConditionValueKind, SourceLocation ifLoc) {
  note(ifLoc, mentionsArch(condition));
}

void ArchConditionTracker::Ifdef(SourceLocation loc, const Token &name,
                                 const MacroDefinition &) {
  note(loc, isArch(name));
}

void ArchConditionTracker::Ifndef(SourceLocation loc, const Token &name,
                                  const MacroDefinition &) {
  note(loc, isArch(name));
}

void ArchConditionTracker::Endif(SourceLocation loc, SourceLocation ifLoc) {
  auto it = Open.find(ifLoc.getRawEncoding());
  if (it == Open.end())
    return;
  if (it->second && SM.isWrittenInMainFile(loc))
    Regions.spans.emplace_back(SM.getFileOffset(ifLoc), SM.getFileOffset(loc));
  else if (it->second && SM.getFileID(ifLoc) == SM.getFileID(loc))
    Regions.headerSpans[SM.getFilename(loc).str()].emplace_back(
        SM.getFileOffset(ifLoc), SM.getFileOffset(loc));
  Open.erase(it);
}

void ArchConditionTracker::note(SourceLocation ifLoc, bool arch) {
  Open[ifLoc.getRawEncoding()] |= arch;
}

bool ArchConditionTracker::mentionsArch(SourceRange range) const {
  if (range.isInvalid())
    return false;
  bool invalid = false;
  StringRef text = Lexer::getSourceText(CharSourceRange::getTokenRange(range),
                                        SM, LangOptions(), &invalid);
  return !invalid && text.contains("__CUDA_ARCH__");
}

} // namespace ktune::tidy
