//===- LineMarks.cpp - Keeping the original's line numbers ----------------===//
//
// Edits that add or remove lines are followed by a `#line N` directive that
// gives the next original line its number again, so __LINE__ (assert, abort
// macros) and diagnostics keep the original's lines, and the default
// instantiation compiles to the same PTX.
//
//===----------------------------------------------------------------------===//

#include "ktune/Refactor/Rewrite.h"

#include <set>

namespace ktune::refactor {

/// Where a `#line` must follow an edit that changed the line count: the
/// start of the first original line after it that does not continue a macro
/// and is not inside another edit; nullopt at the end of the file.
static std::optional<unsigned>
lineMarkAfter(llvm::StringRef source, const clang::tooling::Replacements &edits,
              unsigned end) {
  auto nextLineStart = [&](unsigned from) -> std::optional<unsigned> {
    if (from == 0 || source[from - 1] == '\n')
      return from;
    size_t nl = source.find('\n', from);
    if (nl == llvm::StringRef::npos)
      return std::nullopt;
    return static_cast<unsigned>(nl + 1);
  };
  auto continuesMacro = [&](unsigned lineStart) {
    llvm::StringRef before = source.substr(0, lineStart).rtrim("\r\n");
    return lineStart > 0 && before.ends_with("\\");
  };
  std::optional<unsigned> p = nextLineStart(end);
  for (int guard = 0; p && guard < 100000; ++guard) {
    if (*p >= source.size())
      return std::nullopt;
    if (continuesMacro(*p)) {
      p = nextLineStart(*p + 1);
      continue;
    }
    bool inside = false;
    for (const auto &r : edits)
      if (r.getOffset() < *p && *p < r.getOffset() + r.getLength()) {
        p = nextLineStart(r.getOffset() + r.getLength());
        inside = true;
        break;
      }
    if (!inside)
      return p;
  }
  return std::nullopt;
}

/// An edit whose text ends with a line break (and indentation) before the
/// rest of an original line (`{` + static_asserts + `  x = 1; }`): the #line
/// for that rest goes just after the break, unless it is in a directive or a
/// continued macro.
static bool endsLineMidLine(llvm::StringRef source,
                            const clang::tooling::Replacement &r) {
  unsigned end = r.getOffset() + r.getLength();
  llvm::StringRef text = r.getReplacementText();
  size_t lastBreak = text.rfind('\n');
  if (lastBreak == llvm::StringRef::npos ||
      !text.substr(lastBreak + 1).trim(" \t").empty() || end == 0 ||
      end >= source.size() || source[end - 1] == '\n')
    return false;
  size_t lineStart = source.rfind('\n', end - 1);
  lineStart = lineStart == llvm::StringRef::npos ? 0 : lineStart + 1;
  bool continued = lineStart > 0 &&
                   source.substr(0, lineStart).rtrim("\r\n").ends_with("\\");
  return !continued &&
         !source.substr(lineStart, end - lineStart).ltrim().starts_with("#");
}

llvm::Expected<clang::tooling::Replacements>
withLineMarks(llvm::StringRef source,
              const clang::tooling::Replacements &edits) {
  std::set<unsigned> marks;
  for (const auto &r : edits) {
    auto added = llvm::count(r.getReplacementText(), '\n');
    auto removed =
        llvm::count(source.substr(r.getOffset(), r.getLength()), '\n');
    if (added == removed)
      continue;
    unsigned end = r.getOffset() + r.getLength();
    if (endsLineMidLine(source, r))
      continue; // the #line goes inside its text
    if (auto p = lineMarkAfter(source, edits, end))
      marks.insert(*p);
  }
  // The original line number of source[offset].
  auto lineAt = [&](unsigned offset) {
    return 1 +
           static_cast<unsigned>(llvm::count(source.substr(0, offset), '\n'));
  };
  auto mark = [&](unsigned offset) {
    return "#line " + std::to_string(lineAt(offset)) + "\n";
  };
  std::string file =
      edits.empty() ? std::string() : edits.begin()->getFilePath().str();
  clang::tooling::Replacements out;
  auto add = [&](clang::tooling::Replacement r) -> llvm::Error {
    return out.add(r);
  };
  for (const auto &r : edits) {
    std::string text = r.getReplacementText().str();
    unsigned end = r.getOffset() + r.getLength();
    if (endsLineMidLine(source, r)) {
      size_t cut = text.rfind('\n') + 1;
      text = text.substr(0, cut) + mark(end) + text.substr(cut);
    }
    // A mark at a replacement's offset precedes it; one at a pure
    // insertion's offset follows it.
    if (marks.count(r.getOffset())) {
      text = r.getLength() > 0 ? mark(r.getOffset()) + text
                               : text + mark(r.getOffset());
      marks.erase(r.getOffset());
    }
    if (auto e = add({file, r.getOffset(), r.getLength(), text}))
      return std::move(e);
  }
  for (unsigned p : marks)
    if (auto e = add({file, p, 0, mark(p)}))
      return std::move(e);
  return out;
}

llvm::Expected<std::string>
applyRewrite(llvm::StringRef source,
             const clang::tooling::Replacements &edits) {
  auto marked = withLineMarks(source, edits);
  if (!marked)
    return marked.takeError();
  return clang::tooling::applyAllReplacements(source, *marked);
}

llvm::Expected<FileEdits> withLineMarks(const SourceFacts &facts,
                                        llvm::StringRef mainSource,
                                        const RewriteResult &rewrite) {
  FileEdits out;
  auto mark = [&](unsigned file,
                  const clang::tooling::Replacements &edits) -> llvm::Error {
    if (edits.empty())
      return llvm::Error::success();
    auto marked = withLineMarks(facts.textOf(file, mainSource), edits);
    if (!marked)
      return marked.takeError();
    out.emplace(file, std::move(*marked));
    return llvm::Error::success();
  };
  if (auto e = mark(0, rewrite.replacements))
    return e;
  for (const auto &[file, edits] : rewrite.headerEdits)
    if (auto e = mark(file, edits))
      return e;
  return out;
}

} // namespace ktune::refactor
