//===- TemplateParamUses.cpp - What a kernel's template parameter does ----===//
//
// Whether a launch's argument for a kernel template parameter can be a
// knob: a parameter that selects behaviour never is; one that sizes work is
// one even where each case of a configuration table passes its own value.
//
//===----------------------------------------------------------------------===//

#include "DetectInternal.h"

#include "clang/AST/RecursiveASTVisitor.h"

#include <set>

namespace ktune::refactor {

using namespace clang;

bool selectsBehaviour(const NamedDecl *param, const FunctionDecl *kernel) {
  const auto *nttp = llvm::dyn_cast<NonTypeTemplateParmDecl>(param);
  if (!nttp)
    return true; // types and templates are never tuning constants
  QualType t = nttp->getType();
  if (t->isEnumeralType() || t->isBooleanType())
    return true;
  struct Compared : RecursiveASTVisitor<Compared> {
    const NamedDecl *Param;
    bool Found = false;
    bool refersToParam(const Expr *e) const {
      const auto *ref = llvm::dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
      return ref && ref->getDecl() == Param;
    }
    bool VisitBinaryOperator(BinaryOperator *b) {
      if (b->isEqualityOp() &&
          (refersToParam(b->getLHS()) || refersToParam(b->getRHS())))
        Found = true;
      return !Found;
    }
    bool VisitSwitchStmt(SwitchStmt *s) {
      if (s->getCond() && refersToParam(s->getCond()))
        Found = true;
      return !Found;
    }
  } compared;
  compared.Param = nttp;
  if (kernel->getBody())
    compared.TraverseStmt(kernel->getBody());
  return compared.Found;
}

bool sizesWork(const NamedDecl *param, const FunctionDecl *kernel) {
  struct Uses : RecursiveASTVisitor<Uses> {
    const NamedDecl *Param;
    bool Found = false;
    /// `e` reads the parameter, directly or through a const local's
    /// initialiser (`const int rows = min(SPLIT, n - y);`, then `i < rows`).
    bool names(const Expr *e) const {
      struct Finder : RecursiveASTVisitor<Finder> {
        const NamedDecl *Param;
        bool Found = false;
        std::set<const VarDecl *> Seen;
        bool VisitDeclRefExpr(DeclRefExpr *r) {
          Found = Found || r->getDecl() == Param;
          if (const auto *v = llvm::dyn_cast<VarDecl>(r->getDecl());
              !Found && v && v->hasLocalStorage() && v->getInit() &&
              v->getType().isConstQualified() && Seen.insert(v).second)
            TraverseStmt(const_cast<Expr *>(v->getInit()));
          return !Found;
        }
      } f;
      f.Param = Param;
      if (e)
        f.TraverseStmt(const_cast<Expr *>(e));
      return f.Found;
    }
    bool VisitForStmt(ForStmt *s) {
      if (const auto *b = llvm::dyn_cast_or_null<BinaryOperator>(s->getCond()))
        Found = Found || (b->isRelationalOp() && names(b->getRHS()));
      // A block-stride loop's step (`i += BLOCK * PARTS`).
      if (const auto *step =
              llvm::dyn_cast_or_null<CompoundAssignOperator>(s->getInc()))
        Found = Found || (step->getOpcode() == BO_AddAssign &&
                          names(step->getRHS()));
      return !Found;
    }
    // A block-wide collective's size (`cub::BlockReduce<T, BLOCK>`).
    bool VisitTemplateSpecializationTypeLoc(TemplateSpecializationTypeLoc t) {
      for (unsigned i = 0; i < t.getNumArgs(); ++i)
        if (t.getArgLoc(i).getArgument().getKind() ==
            TemplateArgument::Expression)
          Found = Found || names(t.getArgLoc(i).getSourceExpression());
      return !Found;
    }
    bool VisitVarDecl(VarDecl *v) {
      if (const auto *a = v->getType()->getAsArrayTypeUnsafe())
        if (const auto *d = llvm::dyn_cast<DependentSizedArrayType>(a))
          Found = Found || names(d->getSizeExpr());
      return !Found;
    }
  } uses;
  uses.Param = param;
  if (kernel->getBody())
    uses.TraverseStmt(kernel->getBody());
  if (const auto *lb = kernel->getAttr<CUDALaunchBoundsAttr>())
    uses.Found = uses.Found || uses.names(lb->getMaxThreads());
  return uses.Found;
}

} // namespace ktune::refactor
