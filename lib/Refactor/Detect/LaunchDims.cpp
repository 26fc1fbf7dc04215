//===- LaunchDims.cpp - A launch's grid and block as dims
//------------------===//
//
// The dims a launch's grid or block gives: a dim3's constructor or braces,
// an integer, or a local dim3 followed from its declaration to the launch
// through the field assignments and `if`s that run before it.
//
//===----------------------------------------------------------------------===//

#include "DetectInternal.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"

#include <array>
#include <set>

namespace ktune::refactor {

using namespace clang;

namespace {

using Field = std::shared_ptr<const LaunchDim>;
using Fields = std::array<Field, 3>; // nullptr: dim3's default, 1

/// A field's value on entering a loop's body: the value before the loop or
/// the one the last iteration left. Known again once the body assigns it.
const Field &unknown() {
  static const Field u = std::make_shared<LaunchDim>();
  return u;
}

bool known(const Field &f) {
  return f != unknown() &&
         (!f || !f->condition || (known(f->then) && known(f->otherwise))) &&
         (!f || known(f->prior));
}

Field leaf(const Expr *e) { return std::make_shared<LaunchDim>(LaunchDim{e}); }

/// The values of a local dim3's fields along the statements that run, in
/// order, from its declaration to a launch that reads it. Each assignment
/// (`v.x = e;`, `v = e;`) sets fields; an `if` whose branches assign gives
/// the field `cond ? then : else`; a switch whose case holds the launch runs
/// that case's statements from its label (a case macro's `grid.x = ...,
/// block.x = ...;` before its launch). Any other change of the variable (in
/// a loop, a case falling through, through a pointer or a call) stops the
/// reading.
class FieldFlow {
public:
  FieldFlow(DetectContext &c, const VarDecl *var, const FunctionDecl *fn)
      : C(c), Var(var), Fn(fn) {
    const Stmt *body = fn->getBody();
    ExprMutationAnalyzer analyzer(*body, c.Ctx);
    std::set<const Expr *> configured = launchConfigurations(body);
    for (const DeclRefExpr *r : referencesTo(var, body))
      if (!configured.count(r) && mutatedAt(analyzer, c.Ctx, r))
        Changes.push_back(r);
  }

  /// Runs the statements of `s`, which holds `use`, that come before it.
  bool runTo(const Stmt *s, const Stmt *use, Fields &f) const {
    if (!changes(s))
      return true;
    if (const auto *cs = llvm::dyn_cast<CompoundStmt>(s)) {
      for (const Stmt *x : cs->body()) {
        if (within(x, use))
          return runTo(x, use, f);
        if (!run(x, f))
          return false;
      }
      return false;
    }
    if (const auto *is = llvm::dyn_cast<IfStmt>(s)) {
      if (!plainIf(is))
        return false;
      if (within(is->getThen(), use))
        return runTo(is->getThen(), use, f);
      if (within(is->getElse(), use))
        return runTo(is->getElse(), use, f);
    }
    if (const auto *sw = llvm::dyn_cast<SwitchStmt>(s))
      return runToInCase(sw, use, f);
    // A loop whose body holds `use` (`for (m...) { t = 32; k<<<g, t>>>(); }`):
    // the body starts from either value; what it assigns before `use` is
    // known.
    const Stmt *body = nullptr;
    std::vector<const Stmt *> header;
    if (const auto *fs = llvm::dyn_cast<ForStmt>(s))
      body = fs->getBody(),
      header = {fs->getInit(), fs->getCond(), fs->getInc(),
                fs->getConditionVariableDeclStmt()};
    else if (const auto *ws = llvm::dyn_cast<WhileStmt>(s))
      body = ws->getBody(),
      header = {ws->getCond(), ws->getConditionVariableDeclStmt()};
    else if (const auto *ds = llvm::dyn_cast<DoStmt>(s))
      body = ds->getBody(), header = {ds->getCond()};
    if (!body || !within(body, use) ||
        std::any_of(header.begin(), header.end(),
                    [&](const Stmt *h) { return h && changes(h); }))
      return false;
    for (Field &field : f)
      field = unknown();
    return runTo(body, use, f);
  }

private:
  /// The dims launches are configured with (`<<<grid, block>>>`): read, not
  /// changed, also where the configuration depends on a template parameter
  /// (a dependent stream), which could otherwise take them by reference.
  static std::set<const Expr *> launchConfigurations(const Stmt *body) {
    struct Finder : RecursiveASTVisitor<Finder> {
      std::set<const Expr *> Found;
      bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *k) {
        if (const CallExpr *config = k->getConfig())
          for (const Expr *a : config->arguments()) {
            a = a->IgnoreImplicit();
            if (const auto *copy = llvm::dyn_cast<CXXConstructExpr>(a);
                copy && copy->getNumArgs() == 1)
              a = copy->getArg(0)->IgnoreImplicit();
            Found.insert(a);
          }
        return true;
      }
    } finder;
    finder.TraverseStmt(const_cast<Stmt *>(body));
    return finder.Found;
  }

  /// The statements of the case of `sw` that holds `use`, from its label:
  /// the switch jumps there with the fields it was entered with, unless the
  /// case before changed them and runs into the label.
  bool runToInCase(const SwitchStmt *sw, const Stmt *use, Fields &f) const {
    const auto *body = llvm::dyn_cast_or_null<CompoundStmt>(sw->getBody());
    if (!body || sw->getInit() || sw->getConditionVariable() ||
        changes(sw->getCond()))
      return false;
    const Fields entry = f;
    Fields current = f;
    bool known = false;         // before the first label: never runs
    bool changedInCase = false; // the current case changed the variable
    bool fallsThrough = false;  // its last statement runs into the next
    for (const Stmt *x : body->body()) {
      if (llvm::isa<SwitchCase>(x)) {
        known = !(fallsThrough && changedInCase);
        current = entry;
        changedInCase = false;
        while (const auto *label = llvm::dyn_cast<SwitchCase>(x))
          x = label->getSubStmt();
      }
      if (within(x, use)) {
        f = current;
        return known && runTo(x, use, f);
      }
      if (changes(x)) {
        changedInCase = true;
        known = known && run(x, current);
      }
      fallsThrough = !llvm::isa<BreakStmt>(x) && !llvm::isa<ReturnStmt>(x) &&
                     !llvm::isa<ContinueStmt>(x) && !llvm::isa<GotoStmt>(x);
    }
    return false;
  }

  /// An `if` whose condition only reads (no init, no declaration).
  bool plainIf(const IfStmt *is) const {
    return !is->getInit() && !is->getConditionVariable() &&
           !changes(is->getCond());
  }

  bool changes(const Stmt *s) const {
    return std::any_of(Changes.begin(), Changes.end(),
                       [&](const DeclRefExpr *r) { return within(s, r); });
  }

  /// `v.x = e;` sets a field, `v = e;` (a dim3 made of `e`) all three.
  bool assignment(const Stmt *s, Fields &f) const {
    const auto *e = llvm::dyn_cast<Expr>(s);
    if (!e)
      return false;
    e = e->IgnoreImplicit();
    if (const auto *op = llvm::dyn_cast<BinaryOperator>(e)) {
      // `v = e;` of an integer: its one field.
      if (const auto *lhs =
              llvm::dyn_cast<DeclRefExpr>(op->getLHS()->IgnoreParenImpCasts());
          lhs && lhs->getDecl() == Var &&
          Var->getType()->isIntegralOrEnumerationType()) {
        if (op->getOpcode() != BO_Assign || changes(op->getRHS()))
          return false;
        f[0] = leaf(op->getRHS());
        return true;
      }
      const auto *member =
          llvm::dyn_cast<MemberExpr>(op->getLHS()->IgnoreParenImpCasts());
      const auto *base = member ? llvm::dyn_cast<DeclRefExpr>(
                                      member->getBase()->IgnoreParenImpCasts())
                                : nullptr;
      if (op->getOpcode() != BO_Assign || changes(op->getRHS()) || !base ||
          base->getDecl() != Var)
        return false;
      llvm::StringRef name = member->getMemberDecl()->getName();
      int field = name == "x" ? 0 : name == "y" ? 1 : name == "z" ? 2 : -1;
      if (field < 0)
        return false;
      // `v.x = v.x / k;`: the reads of v.x are its value before.
      LaunchDim value{op->getRHS()};
      fieldReads(op->getRHS(), name, value.reads);
      if (value.reads.size() != referencesTo(Var, op->getRHS()).size())
        return false; // the variable read otherwise, or another field
      if (!value.reads.empty())
        value.prior = f[field];
      f[field] = std::make_shared<LaunchDim>(value);
      return true;
    }
    const auto *call = llvm::dyn_cast<CXXOperatorCallExpr>(e);
    if (!call || call->getOperator() != OO_Equal || call->getNumArgs() != 2)
      return false;
    const auto *lhs =
        llvm::dyn_cast<DeclRefExpr>(call->getArg(0)->IgnoreParenImpCasts());
    std::vector<LaunchDim> dims;
    if (!lhs || lhs->getDecl() != Var || changes(call->getArg(1)) ||
        !collectDims(C, call->getArg(1), Fn, dims) || dims.size() > 3)
      return false;
    f = Fields{};
    for (size_t i = 0; i < dims.size(); ++i)
      f[i] = std::make_shared<LaunchDim>(dims[i]);
    return true;
  }

  /// The reads of `Var.<field>` in `s`.
  void fieldReads(const Stmt *s, llvm::StringRef field,
                  std::vector<const Expr *> &out) const {
    if (!s)
      return;
    if (const auto *m = llvm::dyn_cast<MemberExpr>(s))
      if (const auto *base =
              llvm::dyn_cast<DeclRefExpr>(m->getBase()->IgnoreParenImpCasts());
          base && base->getDecl() == Var &&
          m->getMemberDecl()->getName() == field) {
        out.push_back(m);
        return;
      }
    for (const Stmt *child : s->children())
      fieldReads(child, field, out);
  }

  /// Runs `s` (all of it).
  bool run(const Stmt *s, Fields &f) const {
    if (!changes(s))
      return true;
    if (assignment(s, f))
      return true;
    // `grid.x = a, block.x = b;`: each operand in turn.
    if (const auto *comma = llvm::dyn_cast<BinaryOperator>(llvm::cast<Stmt>(s));
        comma && comma->getOpcode() == BO_Comma)
      return run(comma->getLHS()->IgnoreParens(), f) &&
             run(comma->getRHS()->IgnoreParens(), f);
    if (const auto *cs = llvm::dyn_cast<CompoundStmt>(s)) {
      for (const Stmt *x : cs->body())
        if (!run(x, f))
          return false;
      return true;
    }
    if (const auto *is = llvm::dyn_cast<IfStmt>(s)) {
      if (!plainIf(is))
        return false;
      Fields then = f, otherwise = f;
      if (!run(is->getThen(), then) ||
          (is->getElse() && !run(is->getElse(), otherwise)))
        return false;
      for (int i = 0; i < 3; ++i)
        if (then[i] != otherwise[i])
          f[i] = std::make_shared<LaunchDim>(
              LaunchDim{nullptr, is->getCond(), then[i], otherwise[i]});
      return true;
    }
    return false;
  }

  DetectContext &C;
  const VarDecl *Var;
  const FunctionDecl *Fn;
  std::vector<const DeclRefExpr *> Changes;
};

/// A local dim3 read by `use`: its fields where `use` reads them.
bool reachingFields(DetectContext &c, const VarDecl *var,
                    const FunctionDecl *fn, const DeclRefExpr *use,
                    std::vector<LaunchDim> &dims) {
  const auto *record = var->getType()->getAsCXXRecordDecl();
  if (!fn || !fn->hasBody() || !var->isLocalVarDecl() || !record ||
      record->getName() != "dim3")
    return false;
  // From the block that declares it: each run of that block starts anew.
  const CompoundStmt *scope = declaringBlock(c, var);
  if (!scope)
    return false;
  std::vector<LaunchDim> initial;
  if (var->getInit() && !collectDims(c, var->getInit(), fn, initial))
    return false;
  if (initial.size() > 3)
    return false;
  Fields fields;
  for (size_t i = 0; i < initial.size(); ++i)
    fields[i] = std::make_shared<LaunchDim>(initial[i]);
  if (!FieldFlow(c, var, fn).runTo(scope, use, fields) ||
      !std::all_of(fields.begin(), fields.end(), known))
    return false;
  size_t n = 3;
  while (n > 1 && !fields[n - 1])
    --n;
  dims.clear();
  for (size_t i = 0; i < n; ++i)
    dims.push_back(fields[i] ? *fields[i] : LaunchDim{});
  return true;
}

/// Whether every path gives the value (an integer declared without one and
/// assigned on some paths only has none on the others).
bool complete(const LaunchDim &d) {
  if (!d.condition)
    return d.value != nullptr;
  return d.then && d.otherwise && complete(*d.then) && complete(*d.otherwise);
}

} // namespace

bool reachingValue(DetectContext &c, const VarDecl *var, const FunctionDecl *fn,
                   const DeclRefExpr *use, LaunchDim &value) {
  if (!fn || !fn->hasBody() || !var->isLocalVarDecl() ||
      llvm::isa<ParmVarDecl>(var) ||
      !var->getType()->isIntegralOrEnumerationType())
    return false;
  const CompoundStmt *scope = declaringBlock(c, var);
  if (!scope)
    return false;
  Fields fields;
  if (var->getInit())
    fields[0] = leaf(var->getInit());
  if (!FieldFlow(c, var, fn).runTo(scope, use, fields) || !fields[0] ||
      !known(fields[0]) || !complete(*fields[0]))
    return false;
  value = *fields[0];
  return true;
}

bool collectDims(DetectContext &c, const Expr *e, const FunctionDecl *fn,
                 std::vector<LaunchDim> &dims) {
  if (!e)
    return false;
  e = e->IgnoreImplicit();
  if (const auto *m = llvm::dyn_cast<MaterializeTemporaryExpr>(e))
    e = m->getSubExpr()->IgnoreImplicit();
  if (const auto *b = llvm::dyn_cast<CXXBindTemporaryExpr>(e))
    e = b->getSubExpr()->IgnoreImplicit();
  if (const auto *fc = llvm::dyn_cast<CXXFunctionalCastExpr>(e))
    e = fc->getSubExpr()->IgnoreImplicit();
  if (const auto *p = llvm::dyn_cast<ParenExpr>(e))
    return collectDims(c, p->getSubExpr(), fn, dims);
  if (const auto *ctor = llvm::dyn_cast<CXXConstructExpr>(e)) {
    if (ctor->getNumArgs() == 1 && ctor->getArg(0)->getType()->isRecordType())
      return collectDims(c, ctor->getArg(0), fn, dims);
    // `<<<g, {x, y, 1}>>>`, which the parser reads parenthesised (a comma
    // list in a launch's dims is no code anyone writes): its dims.
    if (ctor->getNumArgs() >= 1)
      if (const auto *list =
              llvm::dyn_cast<ParenExpr>(ctor->getArg(0)->IgnoreImplicit());
          list && (ctor->getNumArgs() == 1 ||
                   llvm::isa<CXXDefaultArgExpr>(ctor->getArg(1)))) {
        std::vector<const Expr *> items;
        const Expr *x = list->getSubExpr()->IgnoreImplicit();
        while (const auto *comma = llvm::dyn_cast<BinaryOperator>(x)) {
          if (comma->getOpcode() != BO_Comma)
            break;
          items.insert(items.begin(), comma->getRHS());
          x = comma->getLHS()->IgnoreImplicit();
        }
        if (!items.empty()) {
          items.insert(items.begin(), x);
          if (items.size() > 3)
            return false;
          for (const Expr *item : items)
            dims.push_back(LaunchDim{item});
          return true;
        }
      }
    for (const Expr *a : ctor->arguments()) {
      if (llvm::isa<CXXDefaultArgExpr>(a))
        break;
      dims.push_back(LaunchDim{a});
    }
    return true;
  }
  if (const auto *list = llvm::dyn_cast<InitListExpr>(e)) {
    for (const Expr *a : list->inits())
      dims.push_back(LaunchDim{a});
    return true;
  }
  // In a template, `dim3 grid((d + 31) / 32)` with `d` of a dependent type
  // is initialised by a parenthesised list that has no type yet.
  if (const auto *list = llvm::dyn_cast<ParenListExpr>(e)) {
    for (const Expr *a : const_cast<ParenListExpr *>(list)->exprs())
      dims.push_back(LaunchDim{a});
    return true;
  }
  // `auto grid = dim3(divUp(rows, kRows))` in a template, its argument of
  // a dependent type: a construction whose constructor is chosen later.
  if (const auto *u = llvm::dyn_cast<CXXUnresolvedConstructExpr>(e)) {
    const auto *record = u->getTypeAsWritten()->getAsCXXRecordDecl();
    if (!record || record->getName() != "dim3" || u->getNumArgs() > 3)
      return false;
    for (const Expr *a : u->arguments())
      dims.push_back(LaunchDim{a});
    return true;
  }
  if (e->getType().isNull())
    return false;
  if (const auto *ref = llvm::dyn_cast<DeclRefExpr>(e)) {
    if (ref->getType()->isRecordType()) {
      const auto *var = llvm::dyn_cast<VarDecl>(ref->getDecl());
      if (var && var->isLocalVarDecl() && var->getInit() &&
          isEffectivelyConst(c, var, fn))
        return collectDims(c, var->getInit(), fn, dims);
      return var && reachingFields(c, var, fn, ref, dims);
    }
  }
  if (e->getType()->isIntegralOrEnumerationType()) {
    dims.push_back(LaunchDim{e});
    return true;
  }
  return false;
}

} // namespace ktune::refactor
