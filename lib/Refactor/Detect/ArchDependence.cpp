//===- ArchDependence.cpp - Constants whose value depends on the GPU ------===//
//
// A named constant defined under `#if __CUDA_ARCH__ ...` (or its #else), or
// from __CUDA_ARCH__ itself, has one value on the host and others on each
// GPU architecture: a template parameter with one default cannot stand for
// it. Such constants are not atoms (never lifted); a note says why. The
// same holds for a constant whose value differs between the two parses
// (dropSideDivergentConstants), whatever the reason.
//
//===----------------------------------------------------------------------===//

#include "DetectInternal.h"

#include "clang/Lex/Lexer.h"

namespace ktune::refactor {

using namespace clang;

namespace {

bool namesArch(llvm::StringRef identifier,
               const std::set<std::string> &archMacros) {
  return identifier.starts_with("__CUDA_ARCH") ||
         archMacros.count(identifier.str());
}

/// One #if/#ifdef/#ifndef ... #endif being read.
struct Conditional {
  unsigned directive = 0; // offset of the '#' of its #if
  bool chainNamesArch = false;
  bool branchDependent = false; // the current branch depends on the arch
  unsigned branchStart = 0;
};

} // namespace

std::vector<ArchRange> archConditionalRanges(llvm::StringRef buffer,
                                             const LangOptions &lo) {
  std::vector<ArchRange> out;
  std::vector<Conditional> stack;
  std::set<std::string> archMacros; // #defined from __CUDA_ARCH__ here
  Lexer lexer(SourceLocation(), lo, buffer.begin(), buffer.begin(),
              buffer.end());
  lexer.SetCommentRetentionState(false);
  Token tok;
  bool pending = false; // `tok` holds a token not yet looked at
  auto offsetOf = [&](const Token &t) {
    return static_cast<unsigned>(t.getLocation().getRawEncoding());
  };
  auto inDependentBranch = [&] {
    for (const Conditional &c : stack)
      if (c.branchDependent)
        return true;
    return false;
  };
  auto closeBranch = [&](unsigned end) {
    Conditional &c = stack.back();
    if (c.branchDependent)
      out.push_back({c.branchStart, end, c.directive});
  };
  while (true) {
    if (!pending && lexer.LexFromRawLexer(tok))
      break; // end of file
    pending = false;
    if (tok.is(tok::eof))
      break;
    if (!tok.is(tok::hash) || !tok.isAtStartOfLine())
      continue;
    unsigned hash = offsetOf(tok);
    // The directive's name and the rest of its line.
    std::vector<Token> line;
    while (!lexer.LexFromRawLexer(tok) && !tok.isAtStartOfLine() &&
           !tok.is(tok::eof))
      line.push_back(tok);
    pending = !tok.is(tok::eof) && tok.isAtStartOfLine();
    if (line.empty() || !line[0].is(tok::raw_identifier))
      continue;
    llvm::StringRef name = line[0].getRawIdentifier();
    bool mentionsArch = false;
    for (size_t i = 1; i < line.size(); ++i)
      if (line[i].is(tok::raw_identifier) &&
          namesArch(line[i].getRawIdentifier(), archMacros))
        mentionsArch = true;
    unsigned lineEnd = pending ? offsetOf(tok) : buffer.size();
    if (name == "if" || name == "ifdef" || name == "ifndef") {
      stack.push_back({hash, mentionsArch, mentionsArch, lineEnd});
    } else if (stack.empty()) {
      if (name == "define" && line.size() > 1 &&
          line[1].is(tok::raw_identifier) && mentionsArch)
        archMacros.insert(line[1].getRawIdentifier().str());
    } else if (name == "elif" || name == "elifdef" || name == "elifndef" ||
               name == "else") {
      closeBranch(hash);
      Conditional &c = stack.back();
      c.chainNamesArch |= mentionsArch;
      c.branchDependent = c.chainNamesArch;
      c.branchStart = lineEnd;
    } else if (name == "endif") {
      closeBranch(hash);
      stack.pop_back();
    } else if (name == "define" && line.size() > 1 &&
               line[1].is(tok::raw_identifier) &&
               (mentionsArch || inDependentBranch())) {
      archMacros.insert(line[1].getRawIdentifier().str());
    }
  }
  return out;
}

const ArchRange *archRangeAt(DetectContext &c, SourceLocation spelled) {
  if (spelled.isInvalid() || !spelled.isFileID() ||
      c.SM.isInSystemHeader(spelled))
    return nullptr;
  auto [file, offset] = c.SM.getDecomposedLoc(spelled);
  auto it = c.ArchRanges.find(file);
  if (it == c.ArchRanges.end()) {
    bool invalid = false;
    llvm::StringRef buffer = c.SM.getBufferData(file, &invalid);
    it = c.ArchRanges
             .emplace(file, invalid ? std::vector<ArchRange>()
                                    : archConditionalRanges(buffer, c.LO))
             .first;
  }
  for (const ArchRange &r : it->second)
    if (offset >= r.begin && offset < r.end)
      return &r;
  return nullptr;
}

std::optional<ArchReason> archDependence(DetectContext &c, const Expr *e,
                                         Position siteBegin, Position siteEnd,
                                         int depth) {
  if (!e || depth > 8)
    return std::nullopt;
  auto where = [&](SourceLocation file, unsigned offset) {
    PresumedLoc p =
        c.SM.getPresumedLoc(c.SM.getComposedLoc(c.SM.getFileID(file), offset));
    return p.isValid() ? std::string(p.getFilename()) + ":" +
                             std::to_string(p.getLine()) + ":" +
                             std::to_string(p.getColumn())
                       : std::string("?");
  };
  // Every token of the expression, through every macro it came from.
  std::optional<ArchReason> found;
  auto checkLoc = [&](SourceLocation loc) {
    for (int level = 0; loc.isMacroID() && level < 32 && !found; ++level) {
      llvm::StringRef macro = Lexer::getImmediateMacroName(loc, c.SM, c.LO);
      SourceLocation spelled = c.SM.getSpellingLoc(loc);
      if (macro.starts_with("__CUDA_ARCH")) {
        found = ArchReason{where(spelled, c.SM.getFileOffset(spelled)),
                           "__CUDA_ARCH__ in its definition"};
        return;
      }
      bool isSite = c.SM.getFileID(spelled) == c.Main &&
                    c.SM.getFileOffset(spelled) >= siteBegin &&
                    c.SM.getFileOffset(spelled) < siteEnd;
      if (!isSite)
        if (const ArchRange *r = archRangeAt(c, spelled)) {
          found = ArchReason{where(spelled, r->directive),
                             "defined under this #if"};
          return;
        }
      loc = c.SM.getImmediateMacroCallerLoc(loc);
    }
  };
  std::vector<const Stmt *> work{e};
  while (!work.empty() && !found) {
    const Stmt *s = work.back();
    work.pop_back();
    if (!s)
      continue;
    checkLoc(s->getBeginLoc());
    checkLoc(s->getEndLoc());
    if (const auto *ref = llvm::dyn_cast<DeclRefExpr>(s))
      if (!found)
        found = archDependentDecl(c, ref->getDecl(), depth + 1);
    for (const Stmt *child : s->children())
      work.push_back(child);
  }
  return found;
}

std::optional<ArchReason> archDependentDecl(DetectContext &c,
                                            const ValueDecl *d, int depth) {
  if (!d || depth > 8)
    return std::nullopt;
  const auto *var = llvm::dyn_cast<VarDecl>(d);
  if (!var && !llvm::isa<EnumConstantDecl>(d))
    return std::nullopt;
  // A local constant's definition is its own site: its literal is the
  // same whichever branch holds it.
  if (var && var->isLocalVarDecl())
    return var->getInit() ? archDependence(c, var->getInit(), 0, 0, depth)
                          : std::nullopt;
  SourceLocation at = c.SM.getExpansionLoc(d->getLocation());
  if (const ArchRange *r = archRangeAt(c, at)) {
    PresumedLoc p = c.SM.getPresumedLoc(
        c.SM.getComposedLoc(c.SM.getFileID(at), r->directive));
    if (p.isValid())
      return ArchReason{std::string(p.getFilename()) + ":" +
                            std::to_string(p.getLine()) + ":" +
                            std::to_string(p.getColumn()),
                        "defined under this #if"};
  }
  const Expr *init =
      var ? var->getInit() : llvm::cast<EnumConstantDecl>(d)->getInitExpr();
  return init ? archDependence(c, init, 0, 0, depth) : std::nullopt;
}

void dropSideDivergentConstants(SourceFacts &host, SourceFacts &device) {
  // The same site on both sides with another value or another constant.
  // Each side numbers its files as it met them: sites are compared by path.
  auto where = [](const SourceFacts &f, Position position) {
    unsigned file = filePart(position);
    std::string path = file < f.files.size() ? f.files[file].absolutePath
                                             : std::to_string(file);
    return path + ":" + std::to_string(localPart(position));
  };
  auto function = [&](const SourceFacts &f, const std::string &id) {
    auto name = functionIdPosition(id);
    return name ? where(f, *name) : id;
  };
  auto site = [&](const SourceFacts &f, const Occurrence &o) {
    return std::make_tuple(where(f, o.offset), function(f, o.function),
                           function(f, o.kernel), insertedConstant(o));
  };
  std::map<std::tuple<std::string, std::string, std::string, std::string>,
           const Occurrence *>
      hostSites;
  for (const Occurrence &o : host.occurrences)
    hostSites[site(host, o)] = &o;
  std::set<std::string> divergent; // constant keys, both sides'
  std::vector<std::string> notes;
  for (const Occurrence &d : device.occurrences) {
    auto it = hostSites.find(site(device, d));
    if (it == hostSites.end())
      continue;
    const Occurrence &h = *it->second;
    if (d.spelling == Spelling::Literal || h.spelling == Spelling::Literal ||
        h.value == d.value)
      continue;
    bool first = !divergent.count(h.constant) && !divergent.count(d.constant);
    divergent.insert(h.constant);
    divergent.insert(d.constant);
    if (first)
      notes.push_back(
          (host.files.empty() ? host.file : host.pathOf(filePart(h.offset))) +
          ":" + std::to_string(h.line) + ":" + std::to_string(h.col) + ": " +
          h.constantName + " is " + std::to_string(h.value) +
          " on the host and " + std::to_string(d.value) +
          " on the device: not lifted (one default cannot serve both)");
  }
  if (divergent.empty())
    return;
  for (SourceFacts *f : {&host, &device}) {
    std::erase_if(f->occurrences, [&](const Occurrence &o) {
      return !o.constant.empty() && divergent.count(o.constant);
    });
    for (const std::string &n : notes)
      if (std::find(f->notes.begin(), f->notes.end(), n) == f->notes.end())
        f->notes.push_back(n);
  }
}

} // namespace ktune::refactor

namespace ktune::refactor {

bool isArchDependent(DetectContext &c, const Atom &a, const clang::Expr *e,
                     const clang::ValueDecl *d) {
  std::optional<ArchReason> why =
      d ? archDependentDecl(c, d, 0)
        : archDependence(c, e, a.offset, a.offset + a.length, 0);
  if (!why)
    return false;
  std::string note = why->where + ": " + a.constantName +
                     " depends on __CUDA_ARCH__ (" + why->why +
                     "): not lifted, one default cannot serve the host and "
                     "every GPU architecture";
  if (std::find(c.Sink.Facts.notes.begin(), c.Sink.Facts.notes.end(), note) ==
      c.Sink.Facts.notes.end())
    c.Sink.note(note);
  return true;
}

} // namespace ktune::refactor
