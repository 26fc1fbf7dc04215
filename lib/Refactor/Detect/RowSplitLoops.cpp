//===- RowSplitLoops.cpp - Block-stride loops a row_split shares out ------===//
//
// A row_split runs every S-th iteration of a block-stride loop in each of a
// row's S blocks: exact when the loop's iterations are independent.
//
//===----------------------------------------------------------------------===//

#include "RowSplitLoops.h"

namespace ktune::refactor {

using namespace clang;

bool within(const SourceManager &sm, SourceLocation at, SourceRange range) {
  return !sm.isBeforeInTranslationUnit(at, range.getBegin()) &&
         !sm.isBeforeInTranslationUnit(range.getEnd(), at);
}

/// The variable a write to `e` lands in when the write stays in the thread
/// (a variable held by value, reached through `.` and array subscripts);
/// null when it goes to memory (through a pointer).
const VarDecl *variableWritten(const Expr *e) {
  e = e->IgnoreParenImpCasts();
  while (true) {
    if (const auto *m = llvm::dyn_cast<MemberExpr>(e); m && !m->isArrow())
      e = m->getBase()->IgnoreParenImpCasts();
    else if (const auto *a = llvm::dyn_cast<ArraySubscriptExpr>(e);
             a && a->getBase()->IgnoreParenImpCasts()->getType()->isArrayType())
      e = a->getBase()->IgnoreParenImpCasts();
    else
      break;
  }
  const auto *ref = llvm::dyn_cast<DeclRefExpr>(e);
  return ref ? llvm::dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
}

std::optional<std::pair<const Expr *, SourceLocation>>
writeOf(const Stmt *s) {
  if (const auto *b = llvm::dyn_cast<BinaryOperator>(s);
      b && b->isAssignmentOp())
    return std::pair{b->getLHS(), b->getOperatorLoc()};
  if (const auto *u = llvm::dyn_cast<UnaryOperator>(s);
      u && u->isIncrementDecrementOp())
    return std::pair{u->getSubExpr(), u->getOperatorLoc()};
  if (const auto *op = llvm::dyn_cast<CXXOperatorCallExpr>(s);
      op && (op->isAssignmentOp() || op->getOperator() == OO_PlusPlus ||
             op->getOperator() == OO_MinusMinus))
    return std::pair{op->getArg(0), op->getOperatorLoc()};
  if (const auto *call = llvm::dyn_cast<CXXMemberCallExpr>(s))
    if (const auto *m = call->getMethodDecl(); m && !m->isConst())
      return std::pair{call->getImplicitObjectArgument(), call->getExprLoc()};
  return std::nullopt;
}

namespace {

/// What iterationsDepend looks for in a loop's body and condition.
class IterationScan : public RecursiveASTVisitor<IterationScan> {
public:
  IterationScan(DetectContext &c, const ForStmt *loop) : C(c), Loop(loop) {
    if (const auto *b = llvm::dyn_cast_or_null<BinaryOperator>(loop->getInit()))
      if (const auto *ref =
              llvm::dyn_cast<DeclRefExpr>(b->getLHS()->IgnoreParenImpCasts()))
        Var = llvm::dyn_cast<VarDecl>(ref->getDecl());
    if (const auto *ds = llvm::dyn_cast_or_null<DeclStmt>(loop->getInit()))
      Var = llvm::dyn_cast<VarDecl>(ds->getSingleDecl());
  }

  // A break inside these leaves them, not the loop.
  bool TraverseForStmt(ForStmt *s) {
    return nested([&] { return Base::TraverseForStmt(s); });
  }
  bool TraverseWhileStmt(WhileStmt *s) {
    return nested([&] { return Base::TraverseWhileStmt(s); });
  }
  bool TraverseDoStmt(DoStmt *s) {
    return nested([&] { return Base::TraverseDoStmt(s); });
  }
  bool TraverseCXXForRangeStmt(CXXForRangeStmt *s) {
    return nested([&] { return Base::TraverseCXXForRangeStmt(s); });
  }
  bool TraverseSwitchStmt(SwitchStmt *s) {
    return nested([&] { return Base::TraverseSwitchStmt(s); });
  }
  bool TraverseLambdaExpr(LambdaExpr *) { return true; }

  bool VisitBreakStmt(BreakStmt *s) {
    if (Depth == 0)
      problem(s->getBreakLoc(), "leaves the loop early (break)");
    return true;
  }
  bool VisitReturnStmt(ReturnStmt *s) {
    problem(s->getReturnLoc(), "leaves the loop early (return)");
    return true;
  }
  bool VisitGotoStmt(GotoStmt *s) {
    problem(s->getGotoLoc(), "leaves the loop early (goto)");
    return true;
  }
  bool VisitStmt(Stmt *s) {
    if (auto w = writeOf(s))
      written(w->first, w->second);
    return true;
  }

  std::optional<std::pair<SourceLocation, std::string>> Problem;
  const VarDecl *Var = nullptr;

private:
  using Base = RecursiveASTVisitor<IterationScan>;
  template <typename Traverse> bool nested(Traverse traverse) {
    ++Depth;
    bool ok = traverse();
    --Depth;
    return ok;
  }

  void problem(SourceLocation at, const std::string &why) {
    if (!Problem)
      Problem.emplace(at, "the block-stride loop " + why +
                              ": its iterations depend on each other");
  }

  bool declaredInLoop(const VarDecl *v) const {
    return v != Var && within(C.SM, v->getLocation(),
                                                     Loop->getSourceRange());
  }

  /// A write to a local declared outside the loop (an array or object held
  /// by value too; memory behind a pointer is each iteration's own).
  void written(const Expr *e, SourceLocation at) {
    const VarDecl *v = variableWritten(e);
    if (!v || !v->hasLocalStorage() || declaredInLoop(v))
      return;
    if (v == Var)
      problem(at, "changes its variable " + v->getNameAsString() +
                      " in its body");
    else
      problem(at, "writes " + v->getNameAsString() + ", declared outside it");
  }

  DetectContext &C;
  const ForStmt *Loop;
  unsigned Depth = 0;
};

/// Reads of `var` outside `loop`.
class ReadAfter : public RecursiveASTVisitor<ReadAfter> {
public:
  ReadAfter(DetectContext &c, const VarDecl *var, const ForStmt *loop)
      : C(c), Var(var), Loop(loop) {}
  bool VisitDeclRefExpr(DeclRefExpr *ref) {
    if (ref->getDecl() == Var &&
        C.SM.isBeforeInTranslationUnit(Loop->getEndLoc(), ref->getLocation()))
      Found = ref->getLocation();
    return true;
  }
  SourceLocation Found;

private:
  DetectContext &C;
  const VarDecl *Var;
  const ForStmt *Loop;
};

} // namespace

std::optional<std::pair<SourceLocation, std::string>>
iterationsDepend(DetectContext &c, const FunctionDecl *kernel,
                 const ForStmt *loop) {
  IterationScan scan(c, loop);
  scan.TraverseStmt(const_cast<Stmt *>(loop->getBody()));
  if (loop->getCond())
    scan.TraverseStmt(const_cast<Expr *>(loop->getCond()));
  if (scan.Problem)
    return scan.Problem;
  if (scan.Var && !llvm::isa<DeclStmt>(loop->getInit())) {
    ReadAfter after(c, scan.Var, loop);
    after.TraverseDecl(const_cast<FunctionDecl *>(kernel));
    if (after.Found.isValid())
      return std::pair{after.Found,
                       "reads " + scan.Var->getNameAsString() +
                           " after its block-stride loop, whose last value "
                           "changes with the split"};
  }
  return std::nullopt;
}

} // namespace ktune::refactor
