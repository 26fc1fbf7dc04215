//===- ConstantAtoms.cpp - What a spelled constant is ---------------------===//
//
// A constant in a role is an *atom*: a literal, a macro, a const variable or
// an enumerator, with its value and, for a constant defined from others,
// how it relates to them (DerivedConstants.cpp). Local variables count as
// constants when nothing in their function can change them
// (ConstantLocals.cpp).
//
//===----------------------------------------------------------------------===//

#include "DetectInternal.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"
#include "clang/Lex/Lexer.h"

#include <algorithm>

namespace ktune::refactor {

using namespace clang;

/// Every character of `s` is a letter, a digit or `extra`.
static bool allAlnumOr(llvm::StringRef s, char extra) {
  return llvm::all_of(s, [&](char c) {
    return isalnum(static_cast<unsigned char>(c)) || c == extra;
  });
}

bool isIdentifier(llvm::StringRef s) {
  return !s.empty() &&
         (isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_') &&
         allAlnumOr(s, '_');
}

bool isIntegerLiteralText(llvm::StringRef s) {
  return !s.empty() && isdigit(static_cast<unsigned char>(s[0])) &&
         allAlnumOr(s, '\'');
}

/// Names that are never tuning knobs: the warp size is fixed by hardware.
bool isFixedByHardware(llvm::StringRef name) {
  std::string n;
  for (char c : name.lower())
    if (c != '_')
      n += c;
  for (const char *fixed : {"warpsize", "threadsperwarp", "warpthreads",
                            "lanesperwarp", "warplanes"})
    if (n.find(fixed) != std::string::npos)
      return true;
  return false;
}

namespace {
const char *const VectorTypes[] = {
    "float2",  "float4",         "double2",   "int2",       "int4",   "uint2",
    "uint4",   "short2",         "short4",    "char4",      "uchar4", "half2",
    "__half2", "__nv_bfloat162", "longlong2", "ulonglong2", "double4"};
} // namespace

bool isVectorTypeName(llvm::StringRef name) {
  bool known = false;
  for (const char *v : VectorTypes)
    known |= name == v;
  return known;
}

int vectorLanes(llvm::StringRef name) {
  if (name == "__half2" || name == "half2" || name == "__nv_bfloat162")
    return 2;
  return name.back() - '0';
}

std::string typeSpelling(const ASTContext &ctx, QualType t) {
  t = t.getUnqualifiedType();
  if (t.isNull() || t->isEnumeralType() ||
      ctx.hasSameType(t.getCanonicalType(), ctx.IntTy))
    return {};
  // A typedef declared inside a function is not visible where a template
  // parameter list is written: spell what it names.
  for (QualType sugar = t; const auto *td = sugar->getAs<TypedefType>();
       sugar = td->desugar())
    if (td->getDecl()->getDeclContext()->isFunctionOrMethod()) {
      t = t.getCanonicalType();
      break;
    }
  clang::PrintingPolicy p(ctx.getLangOpts());
  p.SuppressTagKeyword = true;
  return t.getUnqualifiedType().getAsString(p);
}

std::string castSpelling(const ASTContext &ctx, QualType t) {
  std::string spelled = typeSpelling(ctx, t);
  return spelled.empty()
             ? t.getUnqualifiedType().getAsString(ctx.getPrintingPolicy())
             : spelled;
}

std::string variableKey(const DetectContext &c, const VarDecl *var) {
  return "var:" + var->getQualifiedNameAsString() + "@" +
         std::to_string(
             c.SM.getDecomposedExpansionLoc(var->getLocation()).second);
}

/// The `#define` of function-like macro `name` around `spelled` (a token of
/// its body in a project header), recorded in the facts' macroCopies; false
/// when the text there is no such definition.
static bool headerMacroDefinition(DetectContext &c, SourceLocation spelled,
                                  const std::string &name) {
  if (c.Sink.Facts.macroCopies.count(name))
    return true;
  auto [file, offset] = c.SM.getDecomposedLoc(spelled);
  llvm::StringRef text = c.SM.getBufferData(file);
  auto continued = [&](size_t lineEnd) { // the line ending at lineEnd
    llvm::StringRef line = text.substr(0, lineEnd).rtrim("\r");
    return line.ends_with("\\");
  };
  size_t begin = text.rfind('\n', offset);
  begin = begin == llvm::StringRef::npos ? 0 : begin + 1;
  while (begin > 0 && continued(begin - 1)) {
    size_t previous = text.rfind('\n', begin - 1);
    begin = previous == llvm::StringRef::npos ? 0 : previous + 1;
  }
  size_t end = text.find('\n', offset);
  while (end != llvm::StringRef::npos && continued(end))
    end = text.find('\n', end + 1);
  if (end == llvm::StringRef::npos)
    end = text.size();
  llvm::StringRef def = text.substr(begin, end - begin).ltrim(" \t");
  // A block comment running past a line's end without a backslash keeps
  // the definition going: not read here.
  if (size_t open = def.rfind("/*");
      open != llvm::StringRef::npos &&
      def.find("*/", open) == llvm::StringRef::npos)
    return false;
  if (!def.consume_front("#"))
    return false;
  def = def.ltrim(" \t");
  if (!def.consume_front("define"))
    return false;
  def = def.ltrim(" \t");
  if (!def.consume_front(name) || !def.starts_with("("))
    return false;
  auto at = positionOf(c, c.SM.getComposedLoc(file, begin));
  if (!at)
    return false;
  MacroCopy copy;
  copy.begin = *at;
  copy.end = *at + static_cast<unsigned>(end - begin);
  c.Sink.Facts.macroCopies.emplace(name, copy);
  return true;
}

std::optional<std::pair<Position, unsigned>>
macroBodyLiteral(DetectContext &c, const Expr *e, std::string &macro) {
  const auto *lit = llvm::dyn_cast<IntegerLiteral>(e);
  if (!lit || !lit->getLocation().isMacroID())
    return std::nullopt;
  SourceLocation token = lit->getLocation();
  // An object-like macro's value (`#define THREADS 512`) named in the body
  // of a launch macro (`k<<<divup(n, THREADS), THREADS>>>`): the name there
  // is the site, as a literal there would be.
  if (c.SM.isMacroBodyExpansion(token) &&
      !c.SM.getSLocEntry(c.SM.getFileID(token))
           .getExpansion()
           .isFunctionMacroExpansion()) {
    SourceLocation name = c.SM.getImmediateExpansionRange(token).getBegin();
    if (!name.isMacroID() || !c.SM.isMacroBodyExpansion(name))
      return std::nullopt;
    token = name;
  }
  std::string name = macroBodyOf(c, token);
  SourceLocation spelled = c.SM.getSpellingLoc(token);
  auto at = positionOf(c, spelled);
  if (name.empty() || !at)
    return std::nullopt;
  // A project header's macro serves other files too: the output redefines
  // it in the main file (SourceFacts::macroCopies).
  if (filePart(*at) != 0 && !headerMacroDefinition(c, spelled, name))
    return std::nullopt;
  unsigned length = Lexer::MeasureTokenLength(spelled, c.SM, c.LO);
  if (length == 0)
    return std::nullopt;
  macro = name;
  return std::pair{*at, length};
}

/// A constant of a header spelled in the body of a function-like macro that
/// a host function expands (`kernel<<<NUM_BLOCKS, BLOCK_SIZE>>>` in a
/// project's launch macro): the spelling is every expansion's, but a local
/// constant of the same name declared at the start of the function's body
/// shadows it there, and that declaration is the site.
static std::optional<Atom> shadowedConstant(DetectContext &c, const Expr *s,
                                            const FunctionDecl *fn) {
  const auto *ref = llvm::dyn_cast<DeclRefExpr>(s);
  const auto *var = ref ? llvm::dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  if (!var || !fn || !ref->getLocation().isMacroID() ||
      !c.SM.isMacroBodyExpansion(ref->getLocation()) || ref->hasQualifier() ||
      var->isLocalVarDecl() || llvm::isa<ParmVarDecl>(var) ||
      !var->getDeclContext()->isFileContext() ||
      !(var->getType().isConstQualified() || var->isConstexpr()) ||
      !var->getType()->isIntegralOrEnumerationType() ||
      var->getType()->isBooleanType() ||
      c.SM.isInSystemHeader(c.SM.getExpansionLoc(var->getLocation())))
    return std::nullopt;
  // Host code only: a launch's geometry.
  if (!runsOnHost(fn))
    return std::nullopt;
  const auto *body = llvm::dyn_cast_or_null<CompoundStmt>(fn->getBody());
  if (!body || body->getLBracLoc().isMacroID())
    return std::nullopt;
  auto open = positionOf(c, body->getLBracLoc());
  if (!open)
    return std::nullopt;
  // A local of that name in the body's own scope would be redeclared.
  for (const Stmt *st : body->body())
    if (const auto *ds = llvm::dyn_cast<DeclStmt>(st))
      for (const Decl *d : ds->decls())
        if (const auto *nd = llvm::dyn_cast<NamedDecl>(d);
            nd && nd->getName() == var->getName())
          return std::nullopt;
  // The local would change every use in the body: one spelled in the file
  // (a site of its own, or none) must keep the header's value.
  for (const DeclRefExpr *r : referencesTo(var, body))
    if (!c.SM.isMacroBodyExpansion(r->getLocation()))
      return std::nullopt;
  Expr::EvalResult result;
  if (!s->EvaluateAsInt(result, c.Ctx))
    return std::nullopt;
  Atom a;
  a.spelling = Spelling::Variable;
  a.offset = *open + 1;
  a.length = 0;
  a.value = result.Val.getInt().getExtValue();
  a.constant = variableKey(c, var);
  a.constantName = var->getNameAsString();
  a.castType = typeSpelling(c.Ctx, var->getType());
  a.valueType = a.castType;
  std::string type = a.castType.empty() ? "int" : a.castType;
  a.before = " constexpr " + type + " " + a.constantName + " = ";
  a.after = ";";
  a.shadow = true;
  if (isArchDependent(c, a, s, var))
    return std::nullopt;
  return a;
}

/// A local constant that a launch macro's body declares and reads
/// (`const int num_threads = 256; ... (dim + num_threads - 1) / num_threads`
/// in Warp's `wp_launch_device`): followed into its initialiser like a
/// local written in the file; its definition's literal is the macro's site.
static std::optional<Atom> macroLocalAtom(DetectContext &c, const Expr *s,
                                          const FunctionDecl *fn) {
  const auto *ref = llvm::dyn_cast<DeclRefExpr>(s);
  const auto *var = ref ? llvm::dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  if (!var || !fn || !var->isLocalVarDecl() || llvm::isa<ParmVarDecl>(var) ||
      var->isStaticLocal() || !var->getInit() ||
      var->getInit()->isValueDependent() || !ref->getLocation().isMacroID() ||
      !var->getLocation().isMacroID())
    return std::nullopt;
  std::string macro = macroBodyOf(c, ref->getLocation());
  if (macro.empty() || macro != macroBodyOf(c, var->getLocation()) ||
      c.SM.getExpansionLoc(ref->getLocation()) !=
          c.SM.getExpansionLoc(var->getLocation()))
    return std::nullopt; // declared and read in one expansion only
  if (!(var->getType().isConstQualified() || var->isConstexpr() ||
        isEffectivelyConst(c, var, fn)) ||
      !var->getType()->isIntegralOrEnumerationType() ||
      var->getType()->isBooleanType() || isDispatchedConstant(c, var))
    return std::nullopt;
  SourceLocation spelled = c.SM.getSpellingLoc(ref->getLocation());
  auto at = positionOf(c, spelled);
  Expr::EvalResult result;
  if (!at || !var->getInit()->EvaluateAsInt(result, c.Ctx))
    return std::nullopt;
  Atom a;
  a.offset = *at;
  a.length = Lexer::MeasureTokenLength(spelled, c.SM, c.LO);
  a.text = var->getNameAsString();
  a.value = result.Val.getInt().getExtValue();
  // One constant for every expansion: the macro's spelling of it.
  auto declared = positionOf(c, c.SM.getSpellingLoc(var->getLocation()));
  if (!declared)
    return std::nullopt;
  a.spelling = Spelling::Variable;
  a.constant = "var:" + macro + "::" + var->getNameAsString() + "@" +
               std::to_string(*declared);
  a.constantName = var->getNameAsString();
  a.castType = typeSpelling(c.Ctx, var->getType());
  a.valueType = a.castType;
  a.localVar = var;
  return a;
}

/// `int THREADS = 512;` in a host function that never changes it: a
/// constant in all but its declaration, valued by its initializer.
static bool unchangedHostLocalValue(DetectContext &c, const Expr *s,
                                    const FunctionDecl *fn,
                                    Expr::EvalResult &result) {
  const auto *ref = llvm::dyn_cast<DeclRefExpr>(s);
  const auto *var = ref ? llvm::dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  if (!var || !fn || !var->isLocalVarDecl() || llvm::isa<ParmVarDecl>(var) ||
      var->isStaticLocal() || var->getType().isVolatileQualified() ||
      !var->getInit() || var->getInit()->isValueDependent() || !runsOnHost(fn))
    return false;
  return var->getInit()->EvaluateAsInt(result, c.Ctx) &&
         isEffectivelyConst(c, var, fn);
}

std::optional<Atom> classify(DetectContext &c, const Expr *e,
                             const FunctionDecl *fn) {
  if (!e || e->isValueDependent() || e->isTypeDependent())
    return std::nullopt;
  const Expr *s = e->IgnoreParenImpCasts();
  QualType type = s->getType();
  if (type.isNull() || !type->isIntegralOrUnscopedEnumerationType() ||
      type->isBooleanType() || type->isAnyCharacterType())
    return std::nullopt;
  auto range = fileRange(c, s->getSourceRange());
  // A macro whose body is parenthesised (`#define THREADS (WARPS * 32)`):
  // its whole expansion is the parentheses.
  for (const Expr *p = e->IgnoreImpCasts(); !range && p != s;) {
    range = fileRange(c, p->getSourceRange());
    if (const auto *paren = llvm::dyn_cast<ParenExpr>(p))
      p = paren->getSubExpr()->IgnoreImpCasts();
    else
      break;
  }
  std::string macroBody;
  if (!range)
    range = macroBodyLiteral(c, s, macroBody);
  if (!range) {
    if (auto local = macroLocalAtom(c, s, fn))
      return local;
    return shadowedConstant(c, s, fn);
  }
  Expr::EvalResult result;
  if (!s->EvaluateAsInt(result, c.Ctx) &&
      !unchangedHostLocalValue(c, s, fn, result))
    return std::nullopt;
  Atom a;
  a.offset = range->first;
  a.length = range->second;
  a.macroBody = macroBody;
  a.text = text(c, a.offset, a.length);
  a.value = result.Val.getInt().getExtValue();

  auto castFor = [&](QualType t) { return typeSpelling(c.Ctx, t); };
  // The atom is the macro spelled at the site: the macro is the constant
  // (never one whose value depends on __CUDA_ARCH__).
  auto asMacro = [&]() -> std::optional<Atom> {
    a.spelling = Spelling::Macro;
    a.constant = "macro:" + a.text;
    a.constantName = a.text;
    a.castType = castFor(type);
    a.valueType = a.castType;
    if (isArchDependent(c, a, s, nullptr))
      return std::nullopt;
    return a;
  };

  if (isIntegerLiteralText(a.text)) {
    a.spelling = Spelling::Literal;
    a.castType = castFor(type);
    a.valueType = a.castType;
    return a;
  }
  if (const auto *ref = llvm::dyn_cast<DeclRefExpr>(s)) {
    const ValueDecl *d = ref->getDecl();
    llvm::StringRef name = d->getName();
    if (!llvm::StringRef(a.text).ends_with(name)) {
      // A macro whose body names the constant: the macro is what is spelled.
      if (!isIdentifier(a.text))
        return std::nullopt;
      return asMacro();
    }
    if (const auto *ec = llvm::dyn_cast<EnumConstantDecl>(d)) {
      const auto *en = llvm::dyn_cast<EnumDecl>(ec->getDeclContext());
      if (en && en->isScoped())
        return std::nullopt;
      if (c.SM.isInSystemHeader(c.SM.getExpansionLoc(ec->getLocation())))
        return std::nullopt;
      a.spelling = Spelling::Enumerator;
      auto off = c.SM.getDecomposedExpansionLoc(ec->getLocation());
      a.constant = "enum:" + std::to_string(off.second) + ":" +
                   ec->getQualifiedNameAsString();
      a.constantName = ec->getNameAsString();
      if (isArchDependent(c, a, s, ec))
        return std::nullopt;
      return a;
    }
    if (const auto *var = llvm::dyn_cast<VarDecl>(d)) {
      if (llvm::isa<ParmVarDecl>(var) ||
          c.SM.isInSystemHeader(c.SM.getExpansionLoc(var->getLocation())))
        return std::nullopt;
      if (!var->getType().isConstQualified() && !var->isConstexpr() &&
          !(var->isLocalVarDecl() && fn && isEffectivelyConst(c, var, fn)))
        return std::nullopt;
      if (isDispatchedConstant(c, var))
        return std::nullopt; // one value per case of a dispatch: no knob
      a.spelling = Spelling::Variable;
      a.constant = variableKey(c, var);
      a.constantName = var->getNameAsString();
      a.castType = castFor(var->getType());
      a.valueType = a.castType;
      if (var->isLocalVarDecl() && var->getInit())
        a.localVar = var;
      else if (isArchDependent(c, a, s, var))
        return std::nullopt;
      else if (var->getInit())
        describeDerived(c, var, a);
      if (var->getDeclContext()->isFileContext() &&
          !var->hasExternalStorage() && !var->getDescribedVarTemplate() &&
          var->getBeginLoc().isFileID())
        if (auto declared = positionOf(c, var->getBeginLoc());
            declared && filePart(*declared) == 0)
          c.Sink.Facts.constantDeclarations.emplace(a.offset, *declared);
      return a;
    }
    return std::nullopt;
  }
  // A whole expansion of an object-like macro: `BLOCK`, `(128 * 2)`.
  if (isIdentifier(a.text) && s->getBeginLoc().isMacroID()) {
    SourceLocation spelled = c.SM.getSpellingLoc(s->getBeginLoc());
    if (c.SM.isInSystemHeader(spelled) || c.SM.isWrittenInBuiltinFile(spelled))
      return std::nullopt;
    auto macro = asMacro();
    if (macro)
      describeDerivedMacro(c, s, a.text, *macro);
    return macro;
  }
  return std::nullopt;
}

void namedAtomsIn(DetectContext &c, const Expr *e,
                  std::vector<std::pair<const Expr *, Atom>> &out) {
  if (!e)
    return;
  if (auto atom = classify(c, e, nullptr)) {
    if (atom->spelling != Spelling::Literal)
      out.emplace_back(e, *atom);
    return;
  }
  for (const Stmt *child : e->IgnoreParenImpCasts()->children())
    if (const auto *ce = llvm::dyn_cast_or_null<Expr>(child))
      namedAtomsIn(c, ce, out);
}

} // namespace ktune::refactor
