//===- ConstantAtoms.cpp - What a spelled constant is ---------------------===//
//
// A constant in a role is an *atom*: a literal, a macro, a const variable or
// an enumerator, with its value and, for a constant defined from others,
// how it relates to them. Local variables count as constants when nothing
// in their function can change them.
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

std::optional<std::pair<unsigned, unsigned>>
macroBodyLiteral(DetectContext &c, const Expr *e, std::string &macro) {
  const auto *lit = llvm::dyn_cast<IntegerLiteral>(e);
  if (!lit || !lit->getLocation().isMacroID())
    return std::nullopt;
  std::string name = macroBodyOf(c, lit->getLocation());
  SourceLocation spelled = c.SM.getSpellingLoc(lit->getLocation());
  auto at = offsetOf(c, spelled);
  // The main file's macros only: a header's serve other files too.
  if (name.empty() || !at || filePart(*at) != 0)
    return std::nullopt;
  unsigned length = Lexer::MeasureTokenLength(spelled, c.SM, c.LO);
  if (length == 0)
    return std::nullopt;
  macro = name;
  return std::pair{*at, length};
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
  if (!range)
    return std::nullopt;
  Expr::EvalResult result;
  if (!s->EvaluateAsInt(result, c.Ctx))
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
      a.constant =
          "var:" + var->getQualifiedNameAsString() + "@" +
          std::to_string(
              c.SM.getDecomposedExpansionLoc(var->getLocation()).second);
      a.constantName = var->getNameAsString();
      a.castType = castFor(var->getType());
      a.valueType = a.castType;
      if (var->isLocalVarDecl() && var->getInit())
        a.localVar = var;
      else if (isArchDependent(c, a, s, var))
        return std::nullopt;
      else if (var->getInit())
        describeDerived(c, var, a);
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
    unsigned pos = initRange->first;
    for (auto &[e, b] : bases) {
      if (b.offset < pos)
        continue;
      out += text(c, pos, b.offset - pos) + "{P}";
      pos = b.offset + b.length;
    }
    out += text(c, pos, initRange->first + initRange->second - pos);
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

bool isCudaRuntimeCall(const CallExpr *call) {
  std::string name;
  if (const FunctionDecl *fd = call->getDirectCallee())
    name = fd->getNameAsString();
  else if (const auto *ule = llvm::dyn_cast<UnresolvedLookupExpr>(
               call->getCallee()->IgnoreParenImpCasts()))
    name = ule->getName().getAsString();
  return llvm::StringRef(name).starts_with("cudaLaunch") ||
         llvm::StringRef(name).starts_with("cudaFunc") ||
         llvm::StringRef(name).starts_with("cudaOccupancy");
}

bool isLaunchArgumentUse(ASTContext &ctx, const DeclRefExpr *ref) {
  const Stmt *child = ref;
  for (int depth = 0; depth < 4; ++depth) {
    auto parents = ctx.getParents(*child);
    if (parents.empty())
      return false;
    if (const auto *call = parents[0].get<CallExpr>())
      return isCudaRuntimeCall(call) &&
             std::find(call->arg_begin(), call->arg_end(), child) !=
                 call->arg_end();
    if (const auto *u = parents[0].get<UnaryOperator>();
        u && u->getOpcode() == UO_AddrOf) {
      // `void *args[] = {&n, ...}`: the kernel argument array.
      auto up = ctx.getParents(*u);
      while (!up.empty() && up[0].get<Expr>() &&
             (llvm::isa<CastExpr>(up[0].get<Expr>()) ||
              llvm::isa<ParenExpr>(up[0].get<Expr>())))
        up = ctx.getParents(*up[0].get<Expr>());
      return !up.empty() && up[0].get<InitListExpr>() &&
             up[0].get<InitListExpr>()->getType()->isArrayType() &&
             up[0]
                 .get<InitListExpr>()
                 ->getType()
                 ->getArrayElementTypeNoTypeQual()
                 ->isVoidPointerType();
    }
    if (const auto *e = parents[0].get<Expr>();
        e && (llvm::isa<ImplicitCastExpr>(e) || llvm::isa<ParenExpr>(e))) {
      child = e;
      continue;
    }
    return false;
  }
  return false;
}

std::vector<const DeclRefExpr *> referencesTo(const VarDecl *var,
                                              const Stmt *body) {
  struct Uses : RecursiveASTVisitor<Uses> {
    const VarDecl *Var;
    std::vector<const DeclRefExpr *> Refs;
    bool VisitDeclRefExpr(DeclRefExpr *r) {
      if (r->getDecl() == Var)
        Refs.push_back(r);
      return true;
    }
  } uses;
  uses.Var = var;
  uses.TraverseStmt(const_cast<Stmt *>(body));
  return uses.Refs;
}

bool mutatedAt(ExprMutationAnalyzer &analyzer, ASTContext &ctx,
               const DeclRefExpr *ref) {
  // Captured by reference: the lambda's body is checked like any other
  // code, the capture is no change by itself.
  auto parents = ctx.getParents(*ref);
  if (!parents.empty() && parents[0].get<LambdaExpr>())
    return false;
  if (isLaunchArgumentUse(ctx, ref))
    return false;
  return analyzer.isMutated(ref);
}

bool isEffectivelyConst(DetectContext &c, const VarDecl *var,
                        const FunctionDecl *fn) {
  if (var->getType().isConstQualified() || var->isConstexpr())
    return true;
  if (!fn || !fn->getBody() ||
      (!var->getInit() && !llvm::isa<ParmVarDecl>(var)))
    return false;
  auto key = std::make_pair(fn, var);
  if (auto it = c.ConstCache.find(key); it != c.ConstCache.end())
    return it->second;
  bool constant = true;
  ExprMutationAnalyzer analyzer(*fn->getBody(), c.Ctx);
  for (const DeclRefExpr *r : referencesTo(var, fn->getBody()))
    if (mutatedAt(analyzer, c.Ctx, r)) {
      constant = false;
      break;
    }
  c.ConstCache[key] = constant;
  return constant;
}

const BinaryOperator *soleAssignment(DetectContext &c, const VarDecl *var,
                                     const FunctionDecl *fn,
                                     const DeclRefExpr *use) {
  if (!fn || !fn->hasBody() || !var->isLocalVarDecl() ||
      !var->getType()->isIntegralOrEnumerationType())
    return nullptr;
  const auto *body = llvm::dyn_cast<CompoundStmt>(fn->getBody());
  if (!body)
    return nullptr;
  ExprMutationAnalyzer analyzer(*body, c.Ctx);
  const BinaryOperator *assignment = nullptr;
  for (const DeclRefExpr *r : referencesTo(var, body)) {
    if (!mutatedAt(analyzer, c.Ctx, r))
      continue;
    auto parents = c.Ctx.getParents(*r);
    const auto *op =
        parents.empty() ? nullptr : parents[0].get<BinaryOperator>();
    if (assignment || !op || op->getOpcode() != BO_Assign ||
        op->getLHS()->IgnoreParenImpCasts() != r)
      return nullptr; // changed twice, or not by `=`
    assignment = op;
  }
  if (!assignment || !c.SM.isBeforeInTranslationUnit(assignment->getEndLoc(),
                                                     use->getBeginLoc()))
    return nullptr;
  return assignment;
}

const Expr *onlyAssignment(DetectContext &c, const VarDecl *var,
                           const FunctionDecl *fn, const DeclRefExpr *use) {
  if (var->getInit())
    return nullptr;
  const BinaryOperator *assignment = soleAssignment(c, var, fn, use);
  if (!assignment)
    return nullptr;
  auto statement = c.Ctx.getParents(*assignment);
  if (statement.empty() || statement[0].get<CompoundStmt>() != fn->getBody())
    return nullptr; // in a branch or a loop: not the one value
  return assignment->getRHS();
}

const Expr *capAssignedInBranch(DetectContext &c, const VarDecl *var,
                                const FunctionDecl *fn, const DeclRefExpr *use,
                                const IfStmt *&branch) {
  if (!var->getInit())
    return nullptr;
  const BinaryOperator *assignment = soleAssignment(c, var, fn, use);
  auto sameText = [&](const Expr *a, const Expr *b) {
    std::string ta = textOf(c, a->IgnoreParenImpCasts()->getSourceRange());
    return !ta.empty() &&
           ta == textOf(c, b->IgnoreParenImpCasts()->getSourceRange());
  };
  if (!assignment || !classify(c, assignment->getRHS(), fn))
    return nullptr;
  // The assignment is a statement of an if's then-branch, the if one of the
  // body's statements, its condition `init > bound` (or >=, or reversed).
  auto up = c.Ctx.getParents(*assignment);
  const Stmt *parent = up.empty() ? nullptr : up[0].get<Stmt>();
  if (parent && llvm::isa<CompoundStmt>(parent)) {
    auto upper = c.Ctx.getParents(*parent);
    parent = upper.empty() ? nullptr : upper[0].get<IfStmt>();
  }
  const auto *branchIf = llvm::dyn_cast_or_null<IfStmt>(parent);
  if (!branchIf || branchIf->getElse() || branchIf->getInit() ||
      branchIf->getConditionVariable())
    return nullptr;
  auto statement = c.Ctx.getParents(*branchIf);
  if (statement.empty() || statement[0].get<CompoundStmt>() != fn->getBody())
    return nullptr;
  const auto *cond = llvm::dyn_cast<BinaryOperator>(
      branchIf->getCond()->IgnoreParenImpCasts());
  if (!cond)
    return nullptr;
  const Expr *value = nullptr, *bound = nullptr;
  if (cond->getOpcode() == BO_GT || cond->getOpcode() == BO_GE)
    value = cond->getLHS(), bound = cond->getRHS();
  else if (cond->getOpcode() == BO_LT || cond->getOpcode() == BO_LE)
    value = cond->getRHS(), bound = cond->getLHS();
  if (!value || !sameText(value, var->getInit()) ||
      !sameText(bound, assignment->getRHS()))
    return nullptr;
  branch = branchIf;
  return assignment->getRHS();
}

} // namespace ktune::refactor
