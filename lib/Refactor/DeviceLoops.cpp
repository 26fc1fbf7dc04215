//===- DeviceLoops.cpp - Loop bounds, and what device code indexes --------===//
//
// A loop bound is a site only when the loop is tied to something sized by a
// candidate: a register array of that extent, a strided tile loop, or a
// __shared__ tile it indexes. Whether code is warp-level is read off its
// lane arithmetic on thread indices.
//
//===----------------------------------------------------------------------===//

#include "CollectInternal.h"

#include <algorithm>

namespace ktune::refactor {

using namespace clang;

/// True when the expression mentions one of CUDA's built-in index variables.
bool mentionsBuiltin(const Expr *e, llvm::StringRef name) {
  if (!e)
    return false;
  if (const auto *ref = llvm::dyn_cast<DeclRefExpr>(e))
    if (ref->getDecl()->getName() == name)
      return true;
  // blockIdx.x is a property access whose base hides in an opaque value.
  if (const auto *o = llvm::dyn_cast<OpaqueValueExpr>(e))
    return mentionsBuiltin(o->getSourceExpr(), name);
  for (const Stmt *c : e->children())
    if (const auto *ce = llvm::dyn_cast_or_null<Expr>(c))
      if (mentionsBuiltin(ce, name))
        return true;
  return false;
}

bool DeviceScanner::mentionsThreadIndex(const Expr *e) {
  if (mentionsBuiltin(e, "threadIdx"))
    return true;
  // A local initialised from threadIdx (`int tid = threadIdx.x;`).
  if (const auto *ref = llvm::dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts()))
    if (const auto *var = llvm::dyn_cast<VarDecl>(ref->getDecl()))
      return var->getInit() && mentionsBuiltin(var->getInit(), "threadIdx");
  return false;
}

static bool mentions(const Stmt *s, const ValueDecl *d) {
  if (!s)
    return false;
  if (const auto *ref = llvm::dyn_cast<DeclRefExpr>(s))
    if (ref->getDecl() == d)
      return true;
  for (const Stmt *c : s->children())
    if (mentions(c, d))
      return true;
  return false;
}

bool indexesShared(const Stmt *s, const ValueDecl *iv) {
  if (!s)
    return false;
  if (const auto *sub = llvm::dyn_cast<ArraySubscriptExpr>(s)) {
    const Expr *base = sub->getBase()->IgnoreParenImpCasts();
    while (const auto *inner = llvm::dyn_cast<ArraySubscriptExpr>(base))
      base = inner->getBase()->IgnoreParenImpCasts();
    if (const auto *ref = llvm::dyn_cast<DeclRefExpr>(base))
      if (ref->getDecl()->hasAttr<CUDASharedAttr>() && mentions(sub, iv))
        return true;
  }
  for (const Stmt *c : s->children())
    if (indexesShared(c, iv))
      return true;
  return false;
}

bool indexes(const Stmt *s, const VarDecl *arr, const ValueDecl *iv) {
  if (!s)
    return false;
  if (const auto *sub = llvm::dyn_cast<ArraySubscriptExpr>(s)) {
    const auto *base =
        llvm::dyn_cast<DeclRefExpr>(sub->getBase()->IgnoreParenImpCasts());
    const auto *idx =
        llvm::dyn_cast<DeclRefExpr>(sub->getIdx()->IgnoreParenImpCasts());
    if (base && idx && base->getDecl() == arr && idx->getDecl() == iv)
      return true;
  }
  for (const Stmt *c : s->children())
    if (indexes(c, arr, iv))
      return true;
  return false;
}

bool DeviceScanner::hasConstantStride(const ForStmt *loop) {
  const Expr *inc = loop->getInc();
  if (!inc)
    return false;
  if (const auto *ca =
          llvm::dyn_cast<CompoundAssignOperator>(inc->IgnoreParenImpCasts()))
    if (auto atom = C.classify(ca->getRHS(), Fn))
      return atom->value >= 2;
  return false;
}

void DeviceScanner::finish() {
  for (const ForStmt *loop : Loops) {
    const auto *cond = llvm::dyn_cast_or_null<BinaryOperator>(loop->getCond());
    if (!cond || (cond->getOpcode() != BO_LT && cond->getOpcode() != BO_LE))
      continue;
    const auto *ivRef =
        llvm::dyn_cast<DeclRefExpr>(cond->getLHS()->IgnoreParenImpCasts());
    if (!ivRef)
      continue;
    auto bound = C.classify(cond->getRHS(), Fn);
    if (!bound)
      continue;
    if (bound->spelling != Spelling::Literal) {
      C.walk(cond->getRHS(), ctx(SiteRole::LoopBound));
      continue;
    }
    // Literal bound: a site when the loop walks a register array of that
    // extent, or, joining a block/tile candidate of its value, when the
    // loop is a strided tile loop (`for (j = 0; j < 32; j += 8)`) or
    // indexes shared memory.
    bool linked = false;
    for (const auto &[arr, extents] : RegisterArrays) {
      if (std::find(extents.begin(), extents.end(), bound->value) ==
              extents.end() ||
          !indexes(loop->getBody(), arr, ivRef->getDecl()))
        continue;
      C.walk(cond->getRHS(),
             ctx(SiteRole::LoopBound, Family::itemsPerThread()));
      linked = true;
      break;
    }
    if (!linked && (hasConstantStride(loop) ||
                    indexesShared(loop->getBody(), ivRef->getDecl())))
      C.walk(cond->getRHS(), ctx(SiteRole::LoopBound));
  }
}

} // namespace ktune::refactor
