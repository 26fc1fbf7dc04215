//===- RowSplit.cpp - Can a kernel's row be split over several blocks? ----===//
//
// A row_split of S launches S blocks per row; each runs the kernel's body as
// the row's one block did, but takes only every S-th iteration of each
// block-stride loop (`for (i = threadIdx.x; i < n; i += blockDim.x)` starts
// block s at threadIdx.x + blockDim.x * s and steps by blockDim.x * S).
// blockIdx.x reads blockIdx.x / S and gridDim.x reads gridDim.x / S;
// threadIdx.x and blockDim.x are unchanged, so every value outside those
// loops is what the original block computed, and the S blocks together run
// exactly the iterations it ran. That is exact when
// - the loops' iterations are independent: a body writes no local declared
//   outside it, does not leave the loop early, and the loop's variable is
//   not read after it;
// - memory is written only inside those loops (outside them, each of a
//   row's blocks would write it: an in-place update twice);
// - the threads of a block never meet: no barrier, shared memory, warp
//   exchange, vote or atomic, no inline asm that reads thread ids or
//   synchronises;
// - no y or z index (one-dimensional blocks and grids), no called function
//   reading blockIdx or gridDim (the rewrite cannot reach into it), and no
//   global thread index (`blockIdx.x * blockDim.x + ...`).
//
//===----------------------------------------------------------------------===//

#include "RowSplitLoops.h"

#include "clang/AST/ExprObjC.h"
#include "clang/AST/StmtCXX.h"

namespace ktune::refactor {

using namespace clang;

namespace {

const char *const Builtins[] = {"threadIdx", "blockIdx", "blockDim", "gridDim"};

/// `blockIdx.x` and its kind: the builtin's name and the component.
std::optional<std::pair<std::string, std::string>>
builtinMember(const MSPropertyRefExpr *e) {
  // The base hides in an opaque value (a pseudo-object's syntactic form).
  const Expr *b = e->getBaseExpr()->IgnoreParenImpCasts();
  if (const auto *o = llvm::dyn_cast<OpaqueValueExpr>(b))
    b = o->getSourceExpr()->IgnoreParenImpCasts();
  const auto *base = llvm::dyn_cast<DeclRefExpr>(b);
  if (!base)
    return std::nullopt;
  std::string name = base->getDecl()->getName().str();
  if (std::find(std::begin(Builtins), std::end(Builtins), name) ==
      std::end(Builtins))
    return std::nullopt;
  return std::pair{name, e->getPropertyDecl()->getName().str()};
}

bool communicates(llvm::StringRef n) {
  return n.starts_with("__syncthreads") || n == "__syncwarp" ||
         n.starts_with("__shfl") || n.starts_with("__ballot") ||
         n.starts_with("__any") || n.starts_with("__all") ||
         n == "__activemask" || n.starts_with("__match") ||
         n.starts_with("__reduce_") || n.starts_with("__barrier") ||
         n.starts_with("atomic") || n.starts_with("__atomic");
}

/// What inline asm must not do for a split: read thread or block ids,
/// synchronise, exchange or vote, or update memory atomically.
std::optional<std::string> asmProblem(llvm::StringRef text) {
  for (const char *word :
       {"%tid", "%ntid", "%ctaid", "%nctaid", "%laneid", "%warpid", "bar.",
        "barrier", "shfl", "vote", "atom", "red.", "match.", "redux"})
    if (text.contains(word))
      return std::string(word);
  return std::nullopt;
}

/// A function that may write through what it is given: a parameter that
/// is a pointer or reference to something not const.
bool mayWriteThroughArguments(const FunctionDecl *f) {
  for (const ParmVarDecl *p : f->parameters()) {
    QualType t = p->getType();
    QualType to = t->isPointerType()     ? t->getPointeeType()
                  : t->isReferenceType() ? t.getNonReferenceType()
                                         : QualType();
    if (!to.isNull() && !to.isConstQualified())
      return true;
  }
  return false;
}

class RowSplitScan : public RecursiveASTVisitor<RowSplitScan> {
public:
  RowSplitScan(DetectContext &c, const FunctionDecl *kernel, bool inKernel)
      : C(c), Kernel(kernel), InKernel(inKernel) {}

  bool shouldVisitTemplateInstantiations() const { return false; }

  bool VisitMSPropertyRefExpr(MSPropertyRefExpr *e) {
    auto member = builtinMember(e);
    if (!member)
      return true;
    const auto &[name, component] = *member;
    if (component != "x") {
      refuse(e->getBeginLoc(), (InKernel ? "" : "calls " + Callee + ", which ") +
                                   "reads " + name + "." + component +
                                   ": the split is for one-dimensional "
                                   "blocks and grids");
      return true;
    }
    Names.insert(name);
    // A block's threads and their ids are those of the original block.
    if (name == "threadIdx" || name == "blockDim")
      return true;
    if (!InKernel) {
      refuse(e->getBeginLoc(), "calls " + Callee + ", which reads " + name +
                                   ": the split cannot reach into it");
      return true;
    }
    if (C.SM.isMacroBodyExpansion(e->getBeginLoc()) ||
        C.SM.isMacroBodyExpansion(e->getEndLoc())) {
      refuse(e->getBeginLoc(),
             name + ".x is spelled in a macro: it cannot be rewritten here");
      return true;
    }
    auto range = fileRange(C, e->getSourceRange());
    if (!range) {
      refuse(e->getBeginLoc(), name + ".x is not in a file ktune rewrites");
      return true;
    }
    if (Seen.insert(range->first).second)
      Uses.push_back({range->first, range->second, name + ".x"});
    return true;
  }

  bool VisitVarDecl(VarDecl *v) {
    if (v->hasAttr<CUDASharedAttr>())
      refuse(v->getLocation(), "uses shared memory (" + v->getNameAsString() +
                                   "): its threads communicate");
    return true;
  }

  bool VisitDeclRefExpr(DeclRefExpr *ref) {
    if (const auto *v = llvm::dyn_cast<VarDecl>(ref->getDecl()))
      if (v->hasAttr<CUDASharedAttr>())
        refuse(ref->getLocation(), "uses shared memory (" +
                                       v->getNameAsString() +
                                       "): its threads communicate");
    if (ref->getDecl()->getName() == "warpSize")
      refuse(ref->getLocation(), "reads warpSize: warp-level code");
    return true;
  }

  bool VisitCallExpr(CallExpr *call) {
    std::string name = calleeName(call);
    const FunctionDecl *callee = call->getDirectCallee();
    std::string qualified =
        callee ? callee->getQualifiedNameAsString() : std::string();
    if (communicates(name))
      refuse(call->getBeginLoc(),
             "calls " + name + ": its threads communicate");
    else if (qualified.find("cooperative_groups") != std::string::npos)
      refuse(call->getBeginLoc(),
             "uses cooperative groups (" + qualified + ")");
    else if (callee &&
             !llvm::StringRef(qualified).starts_with("__cuda_builtin_")) {
      Callees.push_back(callee); // not the getters of blockIdx.x and kin
      if (InKernel && !insideSplitLoop(call->getBeginLoc()) &&
          mayWriteThroughArguments(callee) && OutsideWrite.empty())
        OutsideWrite = noteAt(C, call->getBeginLoc(),
                              "calls " + name + " outside its block-stride "
                              "loops with a pointer or reference it may "
                              "write through: each of a row's blocks would "
                              "do it");
    }
    return true;
  }

  bool VisitStmt(Stmt *s) {
    if (auto w = writeOf(s))
      writes(w->first, w->second);
    return true;
  }

  bool VisitGCCAsmStmt(GCCAsmStmt *s) {
    if (auto word = asmProblem(s->getAsmString()->getString()))
      refuse(s->getAsmLoc(), "has inline asm using '" + *word +
                                 "': it reads thread ids or synchronises");
    return true;
  }

  /// blockIdx.x * blockDim.x: a global thread index, whose layout (one
  /// slot per thread of the grid) changes with the block's size.
  bool VisitBinaryOperator(BinaryOperator *b) {
    if (!InKernel || b->getOpcode() != BO_Mul)
      return true;
    const Expr *l = b->getLHS(), *r = b->getRHS();
    if ((reads(l, "blockIdx") && reads(r, "blockDim")) ||
        (reads(l, "blockDim") && reads(r, "blockIdx")))
      refuse(b->getOperatorLoc(),
             "indexes by blockIdx.x * blockDim.x (one slot per thread of "
             "the grid): its layout changes with the block's size");
    return true;
  }

  bool VisitForStmt(ForStmt *f) {
    if (!InKernel)
      return true;
    auto [start, step] = blockStride(f);
    if (!start)
      return true;
    for (const ForStmt *outer : BlockStride)
      if (within(C.SM, f->getBeginLoc(),
                                        outer->getSourceRange()))
        refuse(f->getBeginLoc(), "has a block-stride loop inside another: "
                                 "only one of them could be split");
    BlockStride.push_back(f);
    if (llvm::isa<InitListExpr>(start->IgnoreImplicit()))
      refuse(start->getBeginLoc(), "the loop's start is a braced "
                                   "initialiser: it cannot be rewritten here");
    if (step->HasSideEffects(C.Ctx, /*IncludePossibleEffects=*/false))
      refuse(step->getBeginLoc(), "the loop's step has side effects: it "
                                  "cannot be evaluated once more");
    if (auto problem = iterationsDepend(C, Kernel, f))
      refuse(problem->first, problem->second);
    auto startRange = fileRange(C, start->getSourceRange());
    auto stepRange = fileRange(C, step->getSourceRange());
    if (!startRange || !stepRange || start->getBeginLoc().isMacroID() ||
        start->getEndLoc().isMacroID() || step->getBeginLoc().isMacroID() ||
        step->getEndLoc().isMacroID())
      refuse(f->getBeginLoc(), "the loop's start or step is spelled in a "
                               "macro: it cannot be rewritten here");
    else
      Loops.push_back({startRange->first, startRange->second, stepRange->first,
                       stepRange->second});
    return true;
  }

  void refuse(SourceLocation at, const std::string &why) {
    if (Refusal.empty())
      Refusal = noteAt(C, at, why);
  }

  DetectContext &C;
  const FunctionDecl *Kernel;
  bool InKernel;
  std::string Callee; // the helper being scanned, for messages
  std::string Refusal;
  std::string OutsideWrite; // refused after "no block-stride loop"
  std::vector<BuiltinUse> Uses;
  std::set<unsigned> Seen;
  std::set<std::string> Names;
  std::vector<const FunctionDecl *> Callees;
  std::vector<const ForStmt *> BlockStride;
  std::vector<SplitLoop> Loops;

private:
  bool insideSplitLoop(SourceLocation at) const {
    return std::any_of(BlockStride.begin(), BlockStride.end(),
                       [&](const ForStmt *f) {
                         return within(C.SM, at, f->getSourceRange());
                       });
  }

  /// Memory written outside the block-stride loops would be written by each
  /// of a row's blocks (twice an in-place update, or a sum).
  void writes(const Expr *target, SourceLocation at) {
    if (!InKernel || insideSplitLoop(at))
      return;
    if (const VarDecl *v = variableWritten(target); v && v->hasLocalStorage())
      return;
    if (OutsideWrite.empty())
      OutsideWrite = noteAt(C, at, "writes memory outside its block-stride "
                                   "loops: each of a row's blocks would do it");
  }

  /// `e` reads `builtin`.x, directly or through a local initialised so.
  static bool reads(const Expr *e, llvm::StringRef builtin) {
    if (!e)
      return false;
    if (mentionsBuiltin(e, builtin))
      return true;
    if (const auto *ref = llvm::dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts()))
      if (const auto *var = llvm::dyn_cast<VarDecl>(ref->getDecl()))
        return var->getInit() && mentionsBuiltin(var->getInit(), builtin);
    return false;
  }

  /// for (i = threadIdx.x ...; ...; i += blockDim.x ...): its start and
  /// step, or nulls.
  static std::pair<const Expr *, const Expr *> blockStride(const ForStmt *f) {
    const Expr *start = nullptr;
    if (const auto *ds = llvm::dyn_cast_or_null<DeclStmt>(f->getInit())) {
      if (ds->isSingleDecl())
        if (const auto *v = llvm::dyn_cast<VarDecl>(ds->getSingleDecl()))
          start = v->getInit();
    } else if (const auto *b =
                   llvm::dyn_cast_or_null<BinaryOperator>(f->getInit())) {
      if (b->getOpcode() == BO_Assign)
        start = b->getRHS();
    }
    const auto *inc =
        llvm::dyn_cast_or_null<CompoundAssignOperator>(f->getInc());
    if (start && reads(start, "threadIdx") && inc &&
        inc->getOpcode() == BO_AddAssign && reads(inc->getRHS(), "blockDim"))
      return {start, inc->getRHS()};
    return {nullptr, nullptr};
  }

};

/// Device functions the kernel calls, scanned for what they may not do;
/// those without a body here are listed (assumed not to communicate).
void scanCallees(DetectContext &c, RowSplitScan &kernelScan,
                 RowSplitFacts &out) {
  std::set<const FunctionDecl *> seen;
  std::vector<const FunctionDecl *> work = kernelScan.Callees;
  while (!work.empty() && kernelScan.Refusal.empty()) {
    const FunctionDecl *f = work.back();
    work.pop_back();
    if (const FunctionDecl *p = f->getTemplateInstantiationPattern())
      f = p;
    if (!seen.insert(f->getCanonicalDecl()).second)
      continue;
    const FunctionDecl *def = nullptr;
    if (!f->hasBody(def) || !def->getBody() || def->hasSkippedBody()) {
      std::string name = f->getQualifiedNameAsString();
      if (std::find(out.opaqueCallees.begin(), out.opaqueCallees.end(), name) ==
          out.opaqueCallees.end())
        out.opaqueCallees.push_back(name);
      continue;
    }
    RowSplitScan scan(c, kernelScan.Kernel, /*inKernel=*/false);
    scan.Callee = f->getQualifiedNameAsString();
    scan.TraverseStmt(def->getBody());
    if (!scan.Refusal.empty())
      kernelScan.Refusal = scan.Refusal;
    work.insert(work.end(), scan.Callees.begin(), scan.Callees.end());
  }
}

} // namespace

void analyseRowSplit(DetectContext &c, const FunctionDecl *def,
                     FunctionFacts &facts) {
  RowSplitFacts &out = facts.rowSplit;
  if (out.analysed)
    return;
  out.analysed = true;
  const auto *body = llvm::dyn_cast_or_null<CompoundStmt>(def->getBody());
  if (!body)
    return void(out.refusal = noteAt(c, def->getLocation(),
                                     "the kernel's body is not here"));
  RowSplitScan scan(c, def, /*inKernel=*/true);
  scan.TraverseStmt(const_cast<CompoundStmt *>(body));
  if (scan.Refusal.empty())
    scanCallees(c, scan, out);
  auto open = positionOf(c, body->getLBracLoc());
  auto close = positionOf(c, body->getRBracLoc());
  if (scan.Refusal.empty() &&
      (!open || !close || body->getLBracLoc().isMacroID() ||
       body->getRBracLoc().isMacroID()))
    scan.refuse(def->getLocation(), "the kernel's body is spelled in a macro");
  if (scan.Refusal.empty() && !scan.Names.count("blockIdx"))
    scan.refuse(def->getLocation(),
                "its row does not come from blockIdx.x (it never reads it)");
  if (scan.Refusal.empty() && scan.Loops.empty())
    scan.refuse(def->getLocation(),
                "has no block-stride loop (for (i = threadIdx.x; ...; "
                "i += blockDim.x)): nothing to share among a row's blocks");
  if (scan.Refusal.empty())
    scan.Refusal = scan.OutsideWrite;
  out.refusal = scan.Refusal;
  if (!out.refusal.empty())
    return;
  out.bodyOpen = *open;
  out.bodyClose = *close;
  std::tie(out.bodyLine, out.bodyCol) = lineCol(c, *open);
  out.uses = std::move(scan.Uses);
  out.loops = std::move(scan.Loops);
  std::sort(out.uses.begin(), out.uses.end(),
            [](const BuiltinUse &a, const BuiltinUse &b) {
              return a.offset < b.offset;
            });
}

} // namespace ktune::refactor
