//===- ConstantAtoms.cpp - What a spelled constant is ---------------------===//
//
// A constant in a role is an *atom*: a literal, a macro, a const variable or
// an enumerator, with its value and, for a constant defined from others,
// how it relates to them. Local variables count as constants when nothing
// in their function can change them.
//
//===----------------------------------------------------------------------===//

#include "CollectInternal.h"

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
Collector::macroBodyLiteral(const Expr *e, std::string &macro) {
  const auto *lit = llvm::dyn_cast<IntegerLiteral>(e);
  if (!lit || !lit->getLocation().isMacroID())
    return std::nullopt;
  std::string name = macroBodyOf(*this, lit->getLocation());
  SourceLocation spelled = SM.getSpellingLoc(lit->getLocation());
  if (name.empty() || !SM.isInMainFile(spelled))
    return std::nullopt;
  unsigned length = Lexer::MeasureTokenLength(spelled, SM, LO);
  auto at = offsetOf(spelled);
  if (!at || length == 0)
    return std::nullopt;
  macro = name;
  return std::pair{*at, length};
}

std::optional<Atom> Collector::classify(const Expr *e, const FunctionDecl *fn) {
  if (!e || e->isValueDependent() || e->isTypeDependent())
    return std::nullopt;
  const Expr *s = e->IgnoreParenImpCasts();
  QualType type = s->getType();
  if (type.isNull() || !type->isIntegralOrUnscopedEnumerationType() ||
      type->isBooleanType() || type->isAnyCharacterType())
    return std::nullopt;
  auto range = fileRange(s->getSourceRange());
  std::string macroBody;
  if (!range)
    range = macroBodyLiteral(s, macroBody);
  if (!range)
    return std::nullopt;
  Expr::EvalResult result;
  if (!s->EvaluateAsInt(result, Ctx))
    return std::nullopt;
  Atom a;
  a.offset = range->first;
  a.length = range->second;
  a.macroBody = macroBody;
  a.text = text(a.offset, a.length);
  a.value = result.Val.getInt().getExtValue();

  auto castFor = [&](QualType t) { return typeSpelling(Ctx, t); };
  // The atom is the macro spelled at the site: the macro is the constant
  // (never one whose value depends on __CUDA_ARCH__).
  auto asMacro = [&]() -> std::optional<Atom> {
    a.spelling = Spelling::Macro;
    a.constant = "macro:" + a.text;
    a.constantName = a.text;
    a.castType = castFor(type);
    a.valueType = a.castType;
    if (isArchDependent(a, s, nullptr))
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
      if (SM.isInSystemHeader(SM.getExpansionLoc(ec->getLocation())))
        return std::nullopt;
      a.spelling = Spelling::Enumerator;
      auto off = SM.getDecomposedExpansionLoc(ec->getLocation());
      a.constant = "enum:" + std::to_string(off.second) + ":" +
                   ec->getQualifiedNameAsString();
      a.constantName = ec->getNameAsString();
      if (isArchDependent(a, s, ec))
        return std::nullopt;
      return a;
    }
    if (const auto *var = llvm::dyn_cast<VarDecl>(d)) {
      if (llvm::isa<ParmVarDecl>(var) ||
          SM.isInSystemHeader(SM.getExpansionLoc(var->getLocation())))
        return std::nullopt;
      if (!var->getType().isConstQualified() && !var->isConstexpr() &&
          !(var->isLocalVarDecl() && fn && isEffectivelyConst(var, fn)))
        return std::nullopt;
      if (isDispatchedConstant(*this, var))
        return std::nullopt; // one value per case of a dispatch: no knob
      a.spelling = Spelling::Variable;
      a.constant = "var:" + var->getQualifiedNameAsString() + "@" +
                   std::to_string(
                       SM.getDecomposedExpansionLoc(var->getLocation()).second);
      a.constantName = var->getNameAsString();
      a.castType = castFor(var->getType());
      a.valueType = a.castType;
      if (var->isLocalVarDecl() && var->getInit())
        a.localVar = var;
      else if (isArchDependent(a, s, var))
        return std::nullopt;
      else if (var->getInit())
        describeDerived(var, a);
      return a;
    }
    return std::nullopt;
  }
  // A whole expansion of an object-like macro: `BLOCK`, `(128 * 2)`.
  if (isIdentifier(a.text) && s->getBeginLoc().isMacroID()) {
    SourceLocation spelled = SM.getSpellingLoc(s->getBeginLoc());
    if (SM.isInSystemHeader(spelled) || SM.isWrittenInBuiltinFile(spelled))
      return std::nullopt;
    return asMacro();
  }
  return std::nullopt;
}

void Collector::namedAtomsIn(const Expr *e,
                             std::vector<std::pair<const Expr *, Atom>> &out) {
  if (!e)
    return;
  if (auto atom = classify(e, nullptr)) {
    if (atom->spelling != Spelling::Literal)
      out.emplace_back(e, *atom);
    return;
  }
  for (const Stmt *child : e->IgnoreParenImpCasts()->children())
    if (const auto *ce = llvm::dyn_cast_or_null<Expr>(child))
      namedAtomsIn(ce, out);
}

void Collector::describeDerived(const VarDecl *var, Atom &a) {
  const Expr *init = var->getInit();
  auto initRange = fileRange(init->IgnoreParenImpCasts()->getSourceRange());
  if (!initRange ||
      isIntegerLiteralText(text(initRange->first, initRange->second)))
    return;
  std::vector<std::pair<const Expr *, Atom>> bases;
  namedAtomsIn(init, bases);
  std::set<std::string> keys;
  for (auto &[e, b] : bases)
    keys.insert(b.constant);
  if (keys.empty())
    return;
  if (keys.size() == 1) {
    // Every appearance of the base inside the initialiser becomes {P}.
    std::string t = text(initRange->first, initRange->second);
    std::string out;
    unsigned pos = initRange->first;
    for (auto &[e, b] : bases) {
      if (b.offset < pos)
        continue;
      out += text(pos, b.offset - pos) + "{P}";
      pos = b.offset + b.length;
    }
    out += text(pos, initRange->first + initRange->second - pos);
    a.derivedBases = 1;
    a.baseConstant = bases.front().second.constant;
    a.baseName = bases.front().second.constantName;
    a.baseValue = bases.front().second.value;
    a.replacement = out;
    return;
  }
  RoleCtx r;
  r.placeholders = true;
  if (auto t = walk(init, r)) {
    a.derivedBases = static_cast<int>(keys.size());
    a.derivedExpr = *t;
  }
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

bool Collector::isEffectivelyConst(const VarDecl *var, const FunctionDecl *fn) {
  if (var->getType().isConstQualified() || var->isConstexpr())
    return true;
  if (!fn || !fn->getBody() ||
      (!var->getInit() && !llvm::isa<ParmVarDecl>(var)))
    return false;
  auto key = std::make_pair(fn, var);
  if (auto it = ConstCache.find(key); it != ConstCache.end())
    return it->second;
  bool constant = true;
  ExprMutationAnalyzer analyzer(*fn->getBody(), Ctx);
  for (const DeclRefExpr *r : referencesTo(var, fn->getBody()))
    if (mutatedAt(analyzer, Ctx, r)) {
      constant = false;
      break;
    }
  ConstCache[key] = constant;
  return constant;
}

const BinaryOperator *Collector::soleAssignment(const VarDecl *var,
                                                const FunctionDecl *fn,
                                                const DeclRefExpr *use) {
  if (!fn || !fn->hasBody() || !var->isLocalVarDecl() ||
      !var->getType()->isIntegralOrEnumerationType())
    return nullptr;
  const auto *body = llvm::dyn_cast<CompoundStmt>(fn->getBody());
  if (!body)
    return nullptr;
  ExprMutationAnalyzer analyzer(*body, Ctx);
  const BinaryOperator *assignment = nullptr;
  for (const DeclRefExpr *r : referencesTo(var, body)) {
    if (!mutatedAt(analyzer, Ctx, r))
      continue;
    auto parents = Ctx.getParents(*r);
    const auto *op =
        parents.empty() ? nullptr : parents[0].get<BinaryOperator>();
    if (assignment || !op || op->getOpcode() != BO_Assign ||
        op->getLHS()->IgnoreParenImpCasts() != r)
      return nullptr; // changed twice, or not by `=`
    assignment = op;
  }
  if (!assignment || !SM.isBeforeInTranslationUnit(assignment->getEndLoc(),
                                                   use->getBeginLoc()))
    return nullptr;
  return assignment;
}

const Expr *Collector::onlyAssignment(const VarDecl *var,
                                      const FunctionDecl *fn,
                                      const DeclRefExpr *use) {
  if (var->getInit())
    return nullptr;
  const BinaryOperator *assignment = soleAssignment(var, fn, use);
  if (!assignment)
    return nullptr;
  auto statement = Ctx.getParents(*assignment);
  if (statement.empty() || statement[0].get<CompoundStmt>() != fn->getBody())
    return nullptr; // in a branch or a loop: not the one value
  return assignment->getRHS();
}

const Expr *Collector::capAssignedInBranch(const VarDecl *var,
                                           const FunctionDecl *fn,
                                           const DeclRefExpr *use,
                                           const IfStmt *&branch) {
  if (!var->getInit())
    return nullptr;
  const BinaryOperator *assignment = soleAssignment(var, fn, use);
  auto sameText = [&](const Expr *a, const Expr *b) {
    std::string ta = textOf(a->IgnoreParenImpCasts()->getSourceRange());
    return !ta.empty() &&
           ta == textOf(b->IgnoreParenImpCasts()->getSourceRange());
  };
  if (!assignment || !classify(assignment->getRHS(), fn))
    return nullptr;
  // The assignment is a statement of an if's then-branch, the if one of the
  // body's statements, its condition `init > bound` (or >=, or reversed).
  auto up = Ctx.getParents(*assignment);
  const Stmt *parent = up.empty() ? nullptr : up[0].get<Stmt>();
  if (parent && llvm::isa<CompoundStmt>(parent)) {
    auto upper = Ctx.getParents(*parent);
    parent = upper.empty() ? nullptr : upper[0].get<IfStmt>();
  }
  const auto *branchIf = llvm::dyn_cast_or_null<IfStmt>(parent);
  if (!branchIf || branchIf->getElse() || branchIf->getInit() ||
      branchIf->getConditionVariable())
    return nullptr;
  auto statement = Ctx.getParents(*branchIf);
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
