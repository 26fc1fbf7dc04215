//===- DerivedConstants.cpp - Constants defined from other constants ------===//
//
// `kThreads = kWarps * 32` or `#define THREADS (WARP_COUNT * WARP_SIZE)`:
// a use of such a constant is a site of its bases. With one base, the use
// is spelled as the base's expression (`replacement`); with several, the
// relation is kept as an expression over placeholders (`derivedExpr`).
//
//===----------------------------------------------------------------------===//

#include "DetectInternal.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"
#include "clang/Lex/Lexer.h"

#include <algorithm>

namespace ktune::refactor {

using namespace clang;

namespace {

/// Where `loc`, inside an expansion of object-like macro `macro`, is
/// written in its body (through the macros that body names), and the
/// macro that wrote it there (empty: `macro` itself).
std::optional<std::pair<SourceLocation, std::string>>
inMacroBody(const SourceManager &sm, const LangOptions &lo, SourceLocation loc,
            llvm::StringRef macro) {
  std::string inner;
  for (int depth = 0; loc.isMacroID() && depth < 16; ++depth) {
    llvm::StringRef name = Lexer::getImmediateMacroName(loc, sm, lo);
    if (name == macro)
      return std::pair{sm.getImmediateSpellingLoc(loc), inner};
    inner = name.str();
    loc = sm.getImmediateMacroCallerLoc(loc);
  }
  return std::nullopt;
}

/// The integer literals of an expression, outermost first.
void literalsIn(const Expr *e, std::vector<const IntegerLiteral *> &out) {
  if (!e)
    return;
  if (const auto *lit =
          llvm::dyn_cast<IntegerLiteral>(e->IgnoreParenImpCasts()))
    return out.push_back(lit);
  for (const Stmt *child : e->children())
    if (const auto *ce = llvm::dyn_cast_or_null<Expr>(child))
      literalsIn(ce, out);
}

/// `e` as an expression of "{P}" (where `isBase`) and numbers, for the
/// manifest: `kWarps * 32u` -> "({P} * 32)". Nullopt for other forms.
std::optional<std::string>
valueForm(const Expr *e, const ASTContext &ctx,
          const std::function<bool(const Expr *)> &isBase, int depth = 0) {
  if (!e || depth > 16)
    return std::nullopt;
  e = e->IgnoreParenImpCasts();
  if (isBase(e))
    return "{P}";
  if (const auto *b = llvm::dyn_cast<BinaryOperator>(e)) {
    static const std::set<BinaryOperatorKind> arithmetic = {
        BO_Add, BO_Sub, BO_Mul, BO_Div, BO_Rem, BO_Shl, BO_Shr};
    if (!arithmetic.count(b->getOpcode()))
      return std::nullopt;
    auto l = valueForm(b->getLHS(), ctx, isBase, depth + 1);
    auto r = valueForm(b->getRHS(), ctx, isBase, depth + 1);
    if (!l || !r)
      return std::nullopt;
    bool namesBase = l->find("{P}") != std::string::npos ||
                     r->find("{P}") != std::string::npos;
    if (namesBase)
      return "(" + *l + " " + b->getOpcodeStr().str() + " " + *r + ")";
    // Otherwise one number, folded below.
  }
  Expr::EvalResult result;
  if (!e->isValueDependent() && e->EvaluateAsInt(result, ctx))
    return std::to_string(result.Val.getInt().getExtValue());
  return std::nullopt;
}

} // namespace

void describeDerived(DetectContext &c, const VarDecl *var, Atom &a) {
  const Expr *init = var->getInit();
  auto initRange = fileRange(c, init->IgnoreParenImpCasts()->getSourceRange());
  if (!initRange ||
      isIntegerLiteralText(text(c, initRange->first, initRange->second)))
    return;
  std::vector<std::pair<const Expr *, Atom>> bases;
  namedAtomsIn(c, init, bases);
  std::set<std::string> keys;
  for (auto &[e, b] : bases)
    keys.insert(b.constant);
  if (keys.empty())
    return;
  if (keys.size() == 1) {
    // Every appearance of the base inside the initialiser becomes {P}.
    std::string t = text(c, initRange->first, initRange->second);
    std::string out;
    Position pos = initRange->first;
    for (auto &[e, b] : bases) {
      if (b.offset < pos)
        continue;
      out += text(c, pos, b.offset - pos) + "{P}";
      pos = b.offset + b.length;
    }
    out += text(c, pos, initRange->first + initRange->second - pos);
    // `constexpr int vals = bytes / sizeof(__half);`: a use reads an int,
    // the expression is a size_t; written out, it keeps the declared type
    // (else `threadIdx.x * vals` would become 64-bit arithmetic).
    QualType declared = var->getType().getUnqualifiedType();
    if (declared.getCanonicalType() != init->IgnoreParenImpCasts()
                                           ->getType()
                                           .getUnqualifiedType()
                                           .getCanonicalType() &&
        declared->isIntegerType() && !declared->isEnumeralType())
      out = "static_cast<" + castSpelling(c.Ctx, declared) + ">(" + out + ")";
    a.derivedBases = 1;
    a.baseConstant = bases.front().second.constant;
    a.baseName = bases.front().second.constantName;
    a.baseValue = bases.front().second.value;
    a.replacement = out;
    const Expr *base = bases.front().first;
    a.valueForm =
        valueForm(init, c.Ctx, [&](const Expr *x) {
          const auto *ref = llvm::dyn_cast<DeclRefExpr>(x);
          const auto *baseRef =
              llvm::dyn_cast<DeclRefExpr>(base->IgnoreParenImpCasts());
          return x == base->IgnoreParenImpCasts() ||
                 (ref && baseRef && ref->getDecl() == baseRef->getDecl());
        }).value_or("");
    return;
  }
  RoleCtx r;
  r.placeholders = true;
  if (auto t = walk(c, init, r)) {
    a.derivedBases = static_cast<int>(keys.size());
    a.derivedExpr = *t;
  }
}

void describeDerivedMacro(DetectContext &c, const Expr *e,
                          llvm::StringRef macro, Atom &a) {
  auto begin = inMacroBody(c.SM, c.LO, e->getBeginLoc(), macro);
  auto end = inMacroBody(c.SM, c.LO, e->getEndLoc(), macro);
  if (!begin || !end)
    return;
  auto [file, from] = c.SM.getDecomposedLoc(c.SM.getFileLoc(begin->first));
  auto [endFile, last] = c.SM.getDecomposedLoc(c.SM.getFileLoc(end->first));
  unsigned lastLength =
      Lexer::MeasureTokenLength(c.SM.getFileLoc(end->first), c.SM, c.LO);
  if (file != endFile || last < from || lastLength == 0)
    return;
  llvm::StringRef body =
      c.SM.getBufferData(file).substr(from, last + lastLength - from);
  // Bases: the macros the body names that are defined as one literal.
  struct Base {
    unsigned at;
    std::string name;
    int64_t value;
    std::string type;
  };
  std::vector<Base> bases;
  std::vector<const IntegerLiteral *> literals;
  literalsIn(e, literals);
  for (const IntegerLiteral *lit : literals) {
    auto where = inMacroBody(c.SM, c.LO, lit->getLocation(), macro);
    if (!where || where->second.empty() || isFixedByHardware(where->second))
      continue;
    // A base is defined as this one literal (`#define WARP_COUNT 6`).
    SourceLocation litLoc = lit->getLocation();
    unsigned litLength =
        Lexer::MeasureTokenLength(c.SM.getSpellingLoc(litLoc), c.SM, c.LO);
    if (Lexer::getImmediateMacroName(litLoc, c.SM, c.LO) != where->second ||
        !c.SM.isAtStartOfImmediateMacroExpansion(litLoc) ||
        !c.SM.isAtEndOfImmediateMacroExpansion(
            litLoc.getLocWithOffset(litLength)))
      continue;
    // The base's own expansion in the body is its name's token.
    SourceLocation call = lit->getLocation();
    while (call.isMacroID() &&
           Lexer::getImmediateMacroName(call, c.SM, c.LO) != where->second)
      call = c.SM.getImmediateMacroCallerLoc(call);
    SourceLocation nameLoc = c.SM.getImmediateExpansionRange(call).getBegin();
    auto written = inMacroBody(c.SM, c.LO, nameLoc, macro);
    if (!written || !written->second.empty())
      continue; // named by a macro the body names: not this body's base
    auto [nameFile, at] =
        c.SM.getDecomposedLoc(c.SM.getFileLoc(written->first));
    if (nameFile != file || at < from || at >= from + body.size() ||
        !body.substr(at - from).starts_with(where->second))
      continue;
    bases.push_back({at - from, where->second, lit->getValue().getSExtValue(),
                     typeSpelling(c.Ctx, lit->getType())});
  }
  std::set<std::string> names;
  for (const Base &b : bases)
    names.insert(b.name);
  if (names.empty())
    return;
  std::ranges::sort(bases, {}, &Base::at);
  auto spelled = [&](auto &&placeholder) {
    std::string out;
    size_t pos = 0;
    for (const Base &b : bases) {
      if (b.at < pos)
        continue;
      out += body.substr(pos, b.at - pos).str() + placeholder(b);
      pos = b.at + b.name.size();
    }
    return out + body.substr(pos).str();
  };
  if (names.size() == 1) {
    a.derivedBases = 1;
    a.baseConstant = "macro:" + bases.front().name;
    a.baseName = bases.front().name;
    a.baseValue = bases.front().value;
    a.valueType = bases.front().type; // the parameter's: the base's
    a.replacement = spelled([](const Base &) { return "{P}"; });
    a.valueForm = valueForm(e, c.Ctx, [&](const Expr *x) {
                    const auto *lit = llvm::dyn_cast<IntegerLiteral>(x);
                    auto where =
                        lit ? inMacroBody(c.SM, c.LO, lit->getLocation(), macro)
                            : std::nullopt;
                    return where && where->second == a.baseName;
                  }).value_or("");
    return;
  }
  a.derivedBases = static_cast<int>(names.size());
  a.derivedExpr = spelled([](const Base &b) {
    return "\xC2\xA7macro:" + b.name + "=" + std::to_string(b.value) +
           "\xC2\xA7";
  });
}

} // namespace ktune::refactor
