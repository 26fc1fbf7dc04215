//===- ConstantLocals.cpp - Locals that are constants in effect -----------===//
//
// A local variable counts as a constant when nothing in its function can
// change it (clang::ExprMutationAnalyzer, except that handing it to a
// kernel launch or capturing it in a lambda is no change), or when it is
// assigned once before its use (`int threads; ... threads = ...;`), or
// capped in one branch (`if (n > MAX) threads = MAX;`).
//
//===----------------------------------------------------------------------===//

#include "DetectInternal.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"
#include "clang/Lex/Lexer.h"

#include <algorithm>

namespace ktune::refactor {

using namespace clang;

bool isCudaRuntimeCall(const CallExpr *call) {
  std::string name = calleeName(call);
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

const CompoundStmt *declaringBlock(DetectContext &c, const VarDecl *var) {
  auto parents = c.Ctx.getParents(*var);
  const DeclStmt *ds = parents.empty() ? nullptr : parents[0].get<DeclStmt>();
  if (!ds)
    return nullptr;
  auto up = c.Ctx.getParents(*ds);
  return up.empty() ? nullptr : up[0].get<CompoundStmt>();
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

namespace {

/// `ref` is an argument of a call a template leaves unresolved, and every
/// function that call may name takes that argument by value or by const
/// reference (the mutation analysis takes any such argument for a change).
bool readByUnresolvedCall(ASTContext &ctx, const DeclRefExpr *ref) {
  DynTypedNode node = DynTypedNode::create(*ref);
  const Expr *arg = ref;
  const CallExpr *call = nullptr;
  for (int depth = 0; depth < 4 && !call; ++depth) {
    auto parents = ctx.getParents(node);
    if (parents.empty())
      return false;
    node = parents[0];
    const auto *e = node.get<Expr>();
    if (e && (llvm::isa<ParenExpr>(e) || llvm::isa<ImplicitCastExpr>(e)))
      arg = e;
    else if (!(call = e ? llvm::dyn_cast<CallExpr>(e) : nullptr))
      return false;
  }
  const auto *over =
      call ? llvm::dyn_cast<OverloadExpr>(call->getCallee()->IgnoreImplicit())
           : nullptr;
  auto at = call ? llvm::find(call->arguments(), arg) : nullptr;
  if (!over || over->getNumDecls() == 0 || at == call->arg_end())
    return false;
  unsigned index = at - call->arg_begin();
  for (const NamedDecl *d : over->decls()) {
    d = d->getUnderlyingDecl();
    const FunctionDecl *f =
        llvm::isa<FunctionTemplateDecl>(d)
            ? llvm::cast<FunctionTemplateDecl>(d)->getTemplatedDecl()
            : llvm::dyn_cast<FunctionDecl>(d);
    if (!f || f->getNumParams() == 0)
      return false;
    const ParmVarDecl *p =
        f->getParamDecl(std::min<unsigned>(index, f->getNumParams() - 1));
    if (index >= f->getNumParams() && !p->isParameterPack())
      return false;
    QualType t = p->getType();
    if (const auto *pack = t->getAs<PackExpansionType>())
      t = pack->getPattern();
    if (t->isReferenceType() && !t.getNonReferenceType().isConstQualified())
      return false;
  }
  return true;
}

} // namespace

bool mutatedAt(ExprMutationAnalyzer &analyzer, ASTContext &ctx,
               const DeclRefExpr *ref) {
  // Captured by reference: the lambda's body is checked like any other
  // code, the capture is no change by itself.
  auto parents = ctx.getParents(*ref);
  if (!parents.empty() && parents[0].get<LambdaExpr>())
    return false;
  if (isLaunchArgumentUse(ctx, ref) || readByUnresolvedCall(ctx, ref))
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
