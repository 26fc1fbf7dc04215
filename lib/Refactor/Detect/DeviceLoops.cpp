//===- DeviceLoops.cpp - Loop bounds, and what device code indexes --------===//
//
// A loop bound is a site only when the loop is tied to something sized by a
// candidate: a register array of that extent, a strided tile loop, or a
// __shared__ tile it indexes. Whether code is warp-level is read off its
// lane arithmetic on thread indices.
//
//===----------------------------------------------------------------------===//

#include "DetectInternal.h"

#include "clang/AST/RecursiveASTVisitor.h"

#include "clang/AST/ParentMapContext.h"

#include <algorithm>
#include <functional>

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
    if (auto atom = classify(C, ca->getRHS(), Fn))
      return atom->value >= 2;
  return false;
}

/// `(n - 1) / C + 1` or `(n + C - 1) / C`, through a local holding it: the
/// divisor C when it is an integer literal.
static const Expr *ceilDivisor(DetectContext &c, const FunctionDecl *fn,
                               const Expr *e) {
  e = e->IgnoreParenImpCasts();
  if (const auto *ref = llvm::dyn_cast<DeclRefExpr>(e))
    if (const auto *var = llvm::dyn_cast<VarDecl>(ref->getDecl());
        var && var->isLocalVarDecl() && var->getInit() &&
        (var->getType().isConstQualified() || isEffectivelyConst(c, var, fn)))
      e = var->getInit()->IgnoreParenImpCasts();
  const auto *b = llvm::dyn_cast<BinaryOperator>(e);
  if (b && b->getOpcode() == BO_Add) // (n - 1) / C + 1
    if (const auto *one =
            llvm::dyn_cast<IntegerLiteral>(b->getRHS()->IgnoreParenImpCasts());
        one && one->getValue() == 1)
      b = llvm::dyn_cast<BinaryOperator>(b->getLHS()->IgnoreParenImpCasts());
  if (!b || b->getOpcode() != BO_Div)
    return nullptr;
  const Expr *divisor = b->getRHS()->IgnoreParenImpCasts();
  return llvm::isa<IntegerLiteral>(divisor) ? divisor : nullptr;
}

/// A loop over a thread's chunks of a block's width (GPUMD's patches:
/// `for (p = 0; p < (N - 1) / 1024 + 1; ++p) { n = tid + p * 1024; ...}`,
/// or a chunk count the host passes): the width, spelled as the stride from
/// a thread's index (and as the count's divisor), is the block's size.
void DeviceScanner::chunkLoop(const ForStmt *loop, const VarDecl *iv,
                              const Expr *bound) {
  struct Strides : RecursiveASTVisitor<Strides> {
    DeviceScanner &S;
    const VarDecl *Iv;
    std::vector<const IntegerLiteral *> Found;
    Strides(DeviceScanner &s, const VarDecl *iv) : S(s), Iv(iv) {}
    bool VisitBinaryOperator(BinaryOperator *add) {
      if (add->getOpcode() != BO_Add)
        return true;
      for (auto [thread, product] : {std::pair{add->getLHS(), add->getRHS()},
                                     std::pair{add->getRHS(), add->getLHS()}}) {
        const auto *mul =
            llvm::dyn_cast<BinaryOperator>(product->IgnoreParenImpCasts());
        if (!mul || mul->getOpcode() != BO_Mul ||
            !S.mentionsThreadIndex(thread))
          continue;
        for (auto [var, literal] : {std::pair{mul->getLHS(), mul->getRHS()},
                                    std::pair{mul->getRHS(), mul->getLHS()}}) {
          const auto *ref =
              llvm::dyn_cast<DeclRefExpr>(var->IgnoreParenImpCasts());
          const auto *lit =
              llvm::dyn_cast<IntegerLiteral>(literal->IgnoreParenImpCasts());
          if (ref && ref->getDecl() == Iv && lit)
            Found.push_back(lit);
        }
      }
      return true;
    }
  } strides(*this, iv);
  strides.TraverseStmt(const_cast<Stmt *>(loop->getBody()));
  if (strides.Found.empty())
    return;
  int64_t width = strides.Found.front()->getValue().getSExtValue();
  for (const IntegerLiteral *l : strides.Found)
    if (l->getValue().getSExtValue() != width)
      return; // two widths: no one block
  const Expr *divisor = ceilDivisor(C, Fn, bound);
  if (width < 32 ||
      (divisor &&
       llvm::cast<IntegerLiteral>(divisor)->getValue().getSExtValue() != width))
    return;
  if (divisor)
    walk(C, divisor, ctx(SiteRole::LoopBound));
  for (const Expr *stride : strides.Found)
    walk(C, stride, ctx(SiteRole::LoopStride));
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
    auto bound = classify(C, cond->getRHS(), Fn);
    if (!bound) {
      if (const auto *iv = llvm::dyn_cast<VarDecl>(ivRef->getDecl()))
        chunkLoop(loop, iv, cond->getRHS());
      continue;
    }
    if (bound->spelling != Spelling::Literal) {
      walk(C, cond->getRHS(), ctx(SiteRole::LoopBound));
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
      walk(C, cond->getRHS(),
           ctx(SiteRole::LoopBound, Family::itemsPerThread()));
      linked = true;
      break;
    }
    if (!linked && (hasConstantStride(loop) ||
                    indexesShared(loop->getBody(), ivRef->getDecl())))
      walk(C, cond->getRHS(), ctx(SiteRole::LoopBound));
  }
}

bool within(const Stmt *outer, const Stmt *inner) {
  if (!outer)
    return false;
  if (outer == inner)
    return true;
  for (const Stmt *c : outer->children())
    if (within(c, inner))
      return true;
  return false;
}

namespace {

/// Reads of `name`.x (blockIdx.x, gridDim.x) in `s`.
void componentXReads(const Stmt *s, llvm::StringRef name,
                     std::vector<const Expr *> &out) {
  if (!s)
    return;
  if (const auto *po = llvm::dyn_cast<PseudoObjectExpr>(s)) {
    const auto *prop = llvm::dyn_cast<MSPropertyRefExpr>(
        po->getSyntacticForm()->IgnoreParens());
    if (prop && prop->getPropertyDecl()->getName() == "x" &&
        mentionsBuiltin(prop->getBaseExpr(), name))
      out.push_back(po);
    if (prop)
      return; // its semantic form reads the same builtin again
  }
  for (const Stmt *c : s->children())
    componentXReads(c, name, out);
}

/// DeclRefExprs to `var` in `s`.
void usesOf(const Stmt *s, const VarDecl *var,
            std::vector<const DeclRefExpr *> &out) {
  if (!s)
    return;
  if (const auto *ref = llvm::dyn_cast<DeclRefExpr>(s);
      ref && ref->getDecl() == var)
    out.push_back(ref);
  for (const Stmt *c : s->children())
    usesOf(c, var, out);
}

} // namespace

bool isGridStride(DetectContext &c, const FunctionDecl *kernel,
                  const std::vector<const ForStmt *> &loops) {
  const Stmt *body = kernel->getBody();
  std::vector<const Expr *> blockReads, gridReads;
  componentXReads(body, "blockIdx", blockReads);
  componentXReads(body, "gridDim", gridReads);
  if (gridReads.empty())
    return false;
  // The places a read may be: a grid-stride loop's start (its init) and
  // step (its increment), or the initialiser of a constant local used only
  // there (`int stride = blockDim.x * gridDim.x;`).
  std::vector<const Stmt *> starts, steps;
  for (const ForStmt *loop : loops) {
    const auto *inc =
        llvm::dyn_cast_or_null<CompoundAssignOperator>(loop->getInc());
    if (inc && inc->getOpcode() == BO_AddAssign && loop->getInit()) {
      starts.push_back(loop->getInit());
      steps.push_back(inc->getRHS());
    }
  }
  // `while (i < n) { ...; i += stride; }` with `i` a local: its
  // initialiser is the start.
  std::function<void(const Stmt *)> whileLoops = [&](const Stmt *s) {
    if (!s)
      return;
    for (const Stmt *ch : s->children())
      whileLoops(ch);
    const auto *loop = llvm::dyn_cast<WhileStmt>(s);
    const auto *cond =
        loop ? llvm::dyn_cast<BinaryOperator>(loop->getCond()->IgnoreImpCasts())
             : nullptr;
    const auto *iv =
        cond && cond->getOpcode() == BO_LT
            ? llvm::dyn_cast<DeclRefExpr>(cond->getLHS()->IgnoreImpCasts())
            : nullptr;
    const auto *var = iv ? llvm::dyn_cast<VarDecl>(iv->getDecl()) : nullptr;
    const auto *body =
        loop ? llvm::dyn_cast<CompoundStmt>(loop->getBody()) : nullptr;
    if (!var || !var->isLocalVarDecl() || !var->getInit() || !body)
      return;
    for (const Stmt *st : body->body()) {
      const auto *inc = llvm::dyn_cast<CompoundAssignOperator>(st);
      const auto *lhs =
          inc ? llvm::dyn_cast<DeclRefExpr>(inc->getLHS()->IgnoreImpCasts())
              : nullptr;
      if (inc && inc->getOpcode() == BO_AddAssign && lhs &&
          lhs->getDecl() == var) {
        starts.push_back(var->getInit());
        steps.push_back(inc->getRHS());
      }
    }
  };
  whileLoops(body);
  auto inAny = [](const std::vector<const Stmt *> &places, const Stmt *s) {
    return std::any_of(places.begin(), places.end(),
                       [&](const Stmt *p) { return within(p, s); });
  };
  // A read outside those places, seen through one constant local.
  auto confined = [&](const std::vector<const Expr *> &reads,
                      const std::vector<const Stmt *> &places) {
    for (const Expr *read : reads) {
      if (inAny(places, read))
        continue;
      auto parents = c.Ctx.getParents(*read);
      const VarDecl *local = nullptr;
      for (int depth = 0; depth < 8 && !parents.empty() && !local; ++depth) {
        if (const auto *var = parents[0].get<VarDecl>())
          local = var;
        else if (const auto *e = parents[0].get<Expr>())
          parents = c.Ctx.getParents(*e);
        else
          break;
      }
      if (!local || !local->isLocalVarDecl() ||
          !isEffectivelyConst(c, local, kernel))
        return false;
      std::vector<const DeclRefExpr *> uses;
      usesOf(body, local, uses);
      for (const DeclRefExpr *use : uses)
        if (!inAny(places, use))
          return false;
    }
    return true;
  };
  if (!confined(blockReads, starts) || !confined(gridReads, steps))
    return false;
  // Helpers do not see the grid either.
  std::vector<const CallExpr *> calls;
  std::function<void(const Stmt *)> callsIn = [&](const Stmt *s) {
    if (!s)
      return;
    if (const auto *call = llvm::dyn_cast<CallExpr>(s))
      calls.push_back(call);
    for (const Stmt *ch : s->children())
      callsIn(ch);
  };
  callsIn(body);
  for (const CallExpr *call : calls) {
    const FunctionDecl *callee = call->getDirectCallee();
    const FunctionDecl *def = callee ? callee->getDefinition() : nullptr;
    if (!def || !def->getBody() ||
        c.SM.isInSystemHeader(c.SM.getExpansionLoc(def->getLocation())))
      continue;
    std::vector<const Expr *> inHelper;
    componentXReads(def->getBody(), "blockIdx", inHelper);
    componentXReads(def->getBody(), "gridDim", inHelper);
    if (!inHelper.empty())
      return false;
  }
  return true;
}

} // namespace ktune::refactor
