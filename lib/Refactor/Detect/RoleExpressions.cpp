//===- RoleExpressions.cpp - Constants in a role, and its expression ------===//
//
// An expression in a role (a launch's block dims, a loop stride, a shared
// array's extent) is walked once: every constant in it is recorded as a site
// of that role, and the expression is translated into ktune's expression
// language with "@offset@" markers for the recorded sites, so the launch
// geometry and the implied constraints can be written in terms of
// candidates later.
//
//===----------------------------------------------------------------------===//

#include "DetectInternal.h"

#include <algorithm>
#include <functional>
#include <map>

namespace ktune::refactor {

using namespace clang;

static std::optional<std::string> walkBounds(DetectContext &c,
                                             const std::string &fn,
                                             const Expr *a, const Expr *b,
                                             const RoleCtx &ctx);

int roleRank(SiteRole role, std::optional<SiteRole> useRole) {
  std::optional<SiteRole> r = role == SiteRole::Definition ? useRole : role;
  if (!r || *r == SiteRole::Other)
    return 0;
  if (*r == SiteRole::IndexArith || *r == SiteRole::LaunchGrid ||
      *r == SiteRole::LaunchSmem || *r == SiteRole::LoopBound)
    return 1;
  if (*r == SiteRole::VectorBytes)
    return 3;
  return 2;
}

void FactSink::addOccurrence(Occurrence o) {
  auto key =
      std::make_tuple(o.offset, o.function, o.kernel, insertedConstant(o));
  Occs.emplace(key, std::move(o));
}

void FactSink::occurrence(Occurrence o, std::optional<Position> launch) {
  auto key =
      std::make_tuple(o.offset, o.function, o.kernel, insertedConstant(o));
  auto it = Occs.find(key);
  std::vector<Position> launches;
  if (it != Occs.end())
    launches = it->second.launches;
  if (launch &&
      std::find(launches.begin(), launches.end(), *launch) == launches.end())
    launches.push_back(*launch);
  if (it != Occs.end() && roleRank(o.role, o.useRole) <=
                              roleRank(it->second.role, it->second.useRole)) {
    it->second.launches = std::move(launches);
    return;
  }
  if (it != Occs.end())
    Occs.erase(it); // a more specific role wins
  o.launches = std::move(launches);
  Occs.emplace(key, std::move(o));
}

/// The smallest bare literal worth a parameter in `role`: 1 is a setting
/// of its own for an unroll count (no unrolling) and a launch bound's
/// minimum blocks (no register cap), elsewhere a unit stride or dimension.
static int64_t smallestTunableLiteral(SiteRole role) {
  return role == SiteRole::UnrollPragma ||
                 role == SiteRole::LaunchBoundsMinBlocks
             ? 1
             : 2;
}

void record(DetectContext &c, const Atom &a, const RoleCtx &ctx, SiteRole role,
            std::optional<SiteRole> useRole) {
  if (ctx.placeholders)
    return;
  if (a.spelling != Spelling::Literal && isFixedByHardware(a.constantName))
    return;
  if (a.spelling == Spelling::Literal && a.constant.empty() &&
      (!ctx.recordLiterals || a.value < smallestTunableLiteral(role)))
    return;
  if (a.value <= 0)
    return;
  if (ctx.skipLiteral && a.spelling == Spelling::Literal &&
      a.constant.empty() && a.value == ctx.skipLiteral)
    return;
  Occurrence o;
  o.offset = a.offset;
  o.length = a.length;
  auto [line, col] = lineCol(c, a.offset);
  o.line = line;
  o.col = col;
  o.text = a.text;
  o.function = ctx.fnId;
  o.kernel = ctx.kernelId;
  o.role = role;
  o.useRole = useRole;
  o.value = o.baseValue = a.value;
  o.spelling = a.spelling;
  o.constant = a.constant;
  o.constantName = a.constantName;
  // A grid-stride kernel's grid keeps its family spelled as a local too.
  bool familyHere = ctx.familyAt.empty() ||
                    std::find(ctx.familyAt.begin(), ctx.familyAt.end(),
                              a.offset) != ctx.familyAt.end();
  o.family =
      familyHere && ((a.spelling == Spelling::Literal && a.constant.empty()) ||
                     ctx.family.kind == Family::Kind::GridSize)
          ? ctx.family
          : Family();
  o.dim = ctx.dim;
  o.top = ctx.top || ctx.cap;
  // A literal that is only part of the argument is not the kernel's
  // parameter: in `2 * MAX_K` the 2 is a factor of it. (A named constant's
  // definition is edited, and the argument computed from it follows.)
  bool literal = a.spelling == Spelling::Literal && a.constant.empty();
  o.boundParam = ctx.top || !literal ? ctx.boundParam : -1;
  o.castType = a.castType;
  o.valueType = a.valueType;
  o.macroBody = a.macroBody;
  o.before = a.before;
  o.after = a.after;
  if (a.derivedBases == 1) {
    o.constant = a.baseConstant;
    o.constantName = a.baseName;
    o.replacement = a.replacement;
    o.baseValue = a.baseValue;
    o.valueForm = a.valueForm;
    // A use keeps the type it had: a derived variable's expression is
    // written cast to its declared type (describeDerived), a derived
    // macro's has the type its expansion had.
  } else if (a.derivedBases > 1) {
    o.derivedExpr = a.derivedExpr;
  }
  c.Sink.occurrence(std::move(o), ctx.launch);
}

/// `1 << 10`: a power of two written as a shift of literals (a form the
/// role expressions do not spell, unlike `32 * 4`, whose literals are sites
/// of their own).
static bool literalShift(const Expr *e) {
  const auto *b = llvm::dyn_cast<BinaryOperator>(e->IgnoreParenImpCasts());
  return b && b->getOpcode() == BO_Shl &&
         llvm::isa<IntegerLiteral>(b->getLHS()->IgnoreParenImpCasts()) &&
         llvm::isa<IntegerLiteral>(b->getRHS()->IgnoreParenImpCasts());
}

/// A local constant's initializer written as a literal shift
/// (`int threads = 1 << 10;`): the whole initializer is the value's site.
static std::optional<Atom> literalShiftAtom(DetectContext &c, const Expr *e) {
  if (!e || e->isValueDependent() || !literalShift(e) ||
      !e->getType()->isIntegerType() || e->getType()->isBooleanType())
    return std::nullopt;
  auto range = fileRange(c, e->getSourceRange());
  Expr::EvalResult result;
  if (!range || !e->EvaluateAsInt(result, c.Ctx))
    return std::nullopt;
  Atom a;
  a.offset = range->first;
  a.length = range->second;
  a.text = text(c, a.offset, a.length);
  a.value = result.Val.getInt().getExtValue();
  a.castType = typeSpelling(c.Ctx, e->IgnoreParenImpCasts()->getType());
  a.valueType = a.castType;
  a.shiftOfLiterals = true;
  return a;
}

/// `constexpr int unroll = sizeof(T) == 4 ? 4 : 2;`: a local constant with
/// a value per type, per constant condition, or per run-time condition
/// (`const int threads = sm_threads == 1536 ? 768 : 1024;`). Each branch's
/// literal is a parameter of its own and the condition stays, so every
/// instantiation and every device keeps its value. True when recorded so;
/// `expression` is then the local's value in markers where the condition
/// is a run-time one the walk can spell.
static bool branchConstants(DetectContext &c, const VarDecl *var,
                            const RoleCtx &ctx,
                            std::optional<std::string> &expression) {
  const Expr *init = var->getInit();
  const auto *choice =
      init ? llvm::dyn_cast<ConditionalOperator>(init->IgnoreParenImpCasts())
           : nullptr;
  if (!choice || ctx.placeholders || !var->isLocalVarDecl() ||
      !isEffectivelyConst(c, var, ctx.fn) || !var->getType()->isIntegerType() ||
      isFixedByHardware(var->getName()))
    return false;
  // In device code a run-time choice depends on the data or the thread. A
  // launch's whole block chosen so is read as block alternatives instead.
  bool constantCondition = choice->getCond()->isValueDependent() ||
                           choice->getCond()->isEvaluatable(c.Ctx);
  if (!constantCondition && (!ctx.fn || ctx.fn->hasAttr<CUDAGlobalAttr>() ||
                             ctx.fn->hasAttr<CUDADeviceAttr>() ||
                             (ctx.top && (ctx.role == SiteRole::LaunchBlock ||
                                          ctx.role == SiteRole::TemplateArg))))
    return false;
  auto then = classify(c, choice->getTrueExpr(), ctx.fn);
  auto otherwise = classify(c, choice->getFalseExpr(), ctx.fn);
  auto literal = [](const std::optional<Atom> &a) {
    return a && a->spelling == Spelling::Literal && a->constant.empty() &&
           isIntegerLiteralText(a->text);
  };
  if (!literal(then) || !literal(otherwise))
    return false;
  std::string key = variableKey(c, var);
  for (auto [branch, which] :
       {std::pair{&*then, "#then"}, std::pair{&*otherwise, "#else"}}) {
    branch->spelling = Spelling::Variable;
    branch->constant = key + which;
    branch->constantName = var->getNameAsString();
    branch->castType.clear();
    branch->valueType = typeSpelling(c.Ctx, var->getType());
    record(c, *branch, ctx, SiteRole::Definition, ctx.role);
  }
  expression.reset();
  if (!constantCondition) {
    RoleCtx condition = ctx;
    condition.top = condition.cap = false;
    condition.recordLiterals = false;
    if (auto test = walk(c, choice->getCond(), condition))
      expression = "(" + *test + " ? " + marker(then->offset) + " : " +
                   marker(otherwise->offset) + ")";
  }
  return true;
}

/// A constant: recorded (a local constant at its definition), and named by
/// its marker, or by its value where it is no site.
std::optional<std::string> walkAtom(DetectContext &c, const Atom &atom,
                                    const RoleCtx &ctx) {
  if (atom.localVar) {
    const Expr *init = atom.localVar->getInit();
    // An unchanged non-const local sizing a grid that is no grid-stride
    // loop's: no knob, as its value spelled at the launch would not be.
    bool declaredConst = atom.localVar->getType().isConstQualified() ||
                         atom.localVar->isConstexpr();
    if (!declaredConst && ctx.role == SiteRole::LaunchGrid &&
        ctx.family.kind != Family::Kind::GridSize) {
      auto t = walk(c, init, ctx);
      if (!t)
        return std::nullopt;
      return "(" + *t + ")";
    }
    auto inner = classify(c, init, ctx.fn);
    if (!inner)
      inner = literalShiftAtom(c, init);
    if (inner && inner->spelling == Spelling::Literal &&
        (isIntegerLiteralText(inner->text) || inner->shiftOfLiterals)) {
      // `constexpr int kTile = 32;`: the definition is the site.
      inner->spelling = Spelling::Variable;
      inner->constant = atom.constant;
      inner->constantName = atom.constantName;
      inner->castType.clear();
      inner->valueType = atom.valueType;
      record(c, *inner, ctx, SiteRole::Definition, ctx.role);
      if (isFixedByHardware(atom.constantName))
        return std::to_string(inner->value);
      return marker(inner->offset);
    }
    if (std::optional<std::string> e; branchConstants(c, atom.localVar, ctx, e))
      return e;
    auto t = walk(c, init, ctx);
    if (!t)
      return std::nullopt;
    return "(" + *t + ")";
  }
  if (ctx.placeholders) {
    if (atom.spelling == Spelling::Literal)
      return std::to_string(atom.value);
    return "\xC2\xA7" + atom.constant + "=" + std::to_string(atom.value) +
           "\xC2\xA7";
  }
  record(c, atom, ctx, ctx.role, std::nullopt);
  if (atom.shadow)
    return std::nullopt; // its declaration is no expression of the launch
  if (atom.spelling == Spelling::Literal && atom.constant.empty() &&
      (!ctx.recordLiterals || atom.value < smallestTunableLiteral(ctx.role)))
    return std::to_string(atom.value);
  if (atom.spelling != Spelling::Literal &&
      isFixedByHardware(atom.constantName))
    return std::to_string(atom.value);
  return marker(atom.offset);
}

/// Kernel arguments: the expression the host passes for a parameter.
static std::optional<std::string>
kernelArgument(DetectContext &c, const Expr *e, const RoleCtx &ctx) {
  if (!ctx.textToParam)
    return std::nullopt;
  const Expr *s = e->IgnoreParenImpCasts();
  if (const auto *ref = llvm::dyn_cast<DeclRefExpr>(s))
    if (auto it = ctx.varToParam->find(ref->getDecl());
        it != ctx.varToParam->end())
      return it->second;
  std::string t = textOf(c, s->getSourceRange());
  if (!t.empty())
    if (auto it = ctx.textToParam->find(t); it != ctx.textToParam->end())
      return it->second;
  return std::nullopt;
}

/// A launcher template's own parameter in its launch's geometry
/// (`dim3 block(THREADS)` in `template <int THREADS> void launch(...)`),
/// set by the only call's explicit argument (`launch<float, 256>(x, n)`),
/// or by the call a LauncherCall reads: that constant, a site of the
/// calling function.
static std::optional<std::string>
callerTemplateArgument(DetectContext &c, const Expr *e, const RoleCtx &ctx) {
  const auto *ref = llvm::dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
  const auto *nt =
      ref ? llvm::dyn_cast<NonTypeTemplateParmDecl>(ref->getDecl()) : nullptr;
  if (!nt || !ctx.launch || ctx.placeholders ||
      (ctx.role != SiteRole::LaunchBlock && ctx.role != SiteRole::LaunchGrid &&
       ctx.role != SiteRole::LaunchSmem))
    return std::nullopt;
  std::optional<std::pair<const Expr *, const FunctionDecl *>> arg;
  if (ctx.callerArgs) {
    if (auto it = ctx.callerArgs->find(nt); it != ctx.callerArgs->end())
      arg = it->second;
  } else {
    arg = soleCallerArgument(c, nt, ctx.fn);
  }
  if (!arg)
    return std::nullopt;
  auto atom = classify(c, arg->first, arg->second);
  if (!atom || atom->shadow)
    return std::nullopt;
  RoleCtx caller = ctx;
  caller.fn = arg->second;
  caller.fnId = functionFacts(c, arg->second, FunctionRole::Host).id;
  caller.varToParam = nullptr;
  caller.textToParam = nullptr;
  caller.typeToParam = nullptr;
  caller.kernelNames = nullptr;
  caller.hostNames = nullptr;
  caller.priors = nullptr;
  caller.callerArgs = nullptr;
  return walkAtom(c, *atom, caller);
}

/// A parameter of the launching function that the kernel does not receive
/// (`num_tokens` in `dim3 grid(num_tokens)`): a dimension of the problem,
/// named as it is when nothing in the function changes it and no kernel
/// parameter has its name.
static std::optional<std::string>
launcherParameter(DetectContext &c, const ParmVarDecl *p, const RoleCtx &ctx) {
  if (!ctx.hostNames || !ctx.fn || p->getDeclContext() != ctx.fn ||
      !p->getType()->isIntegralOrEnumerationType() ||
      p->getType()->isBooleanType() || p->getName().empty())
    return std::nullopt;
  std::string name = p->getNameAsString();
  if ((ctx.kernelNames && ctx.kernelNames->count(name)) ||
      !isEffectivelyConst(c, p, ctx.fn))
    return std::nullopt;
  ctx.hostNames->insert(name);
  return name;
}

static std::optional<std::string>
walkName(DetectContext &c, const DeclRefExpr *ref, const RoleCtx &ctx) {
  if (const auto *nt = llvm::dyn_cast<NonTypeTemplateParmDecl>(ref->getDecl()))
    return nt->getNameAsString();
  if (const auto *p = llvm::dyn_cast<ParmVarDecl>(ref->getDecl()))
    return launcherParameter(c, p, ctx);
  if (const auto *var = llvm::dyn_cast<VarDecl>(ref->getDecl());
      var && isDispatchedConstant(c, var))
    return std::nullopt; // data-dependent: named only as a kernel parameter
  if (const auto *var = llvm::dyn_cast<VarDecl>(ref->getDecl());
      var && var->isLocalVarDecl() && var->getInit() && ctx.fn &&
      !llvm::isa<ParmVarDecl>(var) && isEffectivelyConst(c, var, ctx.fn) &&
      var->getType()->isIntegralOrEnumerationType()) {
    if (std::optional<std::string> e; branchConstants(c, var, ctx, e))
      return e;
    // A local computed at run time (`int blocks = (n + 255) / 256;`).
    auto t = walk(c, var->getInit(), ctx);
    if (!t)
      return std::nullopt;
    return "(" + *t + ")";
  }
  if (const auto *var = llvm::dyn_cast<VarDecl>(ref->getDecl())) {
    if (const Expr *value = onlyAssignment(c, var, ctx.fn, ref)) {
      auto t = walk(c, value, ctx);
      if (!t)
        return std::nullopt;
      return "(" + *t + ")";
    }
    const IfStmt *branch = nullptr;
    if (const Expr *bound = capAssignedInBranch(c, var, ctx.fn, ref, branch)) {
      // The bound in the condition, and the grid the branch computes from
      // it (`blocks = (n + MAX - 1) / MAX;`), change with it.
      RoleCtx cap = ctx;
      cap.cap = true;
      walk(c, branch->getCond(), cap);
      RoleCtx grid = ctx;
      grid.role = SiteRole::LaunchGrid;
      grid.top = grid.cap = false;
      grid.dim = -1;
      struct Assignments : RecursiveASTVisitor<Assignments> {
        std::vector<const Expr *> Values;
        bool VisitBinaryOperator(BinaryOperator *b) {
          if (b->getOpcode() == BO_Assign)
            Values.push_back(b->getRHS());
          return true;
        }
      } assignments;
      assignments.TraverseStmt(const_cast<Stmt *>(branch->getThen()));
      for (const Expr *v : assignments.Values)
        if (v != bound)
          walk(c, v, grid);
      return walkBounds(c, "min", var->getInit(), bound, ctx);
    }
    // Assigned on the paths that reach the read (`if (shared) t = A; else
    // t = B;`): each value in the role, the condition choosing.
    if (LaunchDim value; reachingValue(c, var, ctx.fn, ref, value)) {
      auto t = walkDim(c, value, ctx);
      if (!t)
        return std::nullopt;
      return "(" + *t + ")";
    }
  }
  return std::nullopt;
}

static std::optional<std::string>
walkUnary(DetectContext &c, const UnaryOperator *u, const RoleCtx &ctx) {
  RoleCtx inner = ctx;
  inner.top = inner.cap = false;
  auto t = walk(c, u->getSubExpr(), inner);
  if (!t)
    return std::nullopt;
  switch (u->getOpcode()) {
  case UO_Minus:
    return "(-" + *t + ")";
  case UO_Plus:
    return *t;
  case UO_LNot:
    return "(!" + *t + ")";
  default:
    return std::nullopt;
  }
}

static std::optional<std::string>
walkBinary(DetectContext &c, const BinaryOperator *b, const RoleCtx &ctx) {
  RoleCtx inner = ctx;
  inner.top = inner.cap = false;
  // `16 / sizeof(T)`: a vector width in bytes, wherever it is computed.
  if (b->getOpcode() == BO_Div &&
      llvm::isa<UnaryExprOrTypeTraitExpr>(b->getRHS()->IgnoreParenImpCasts()))
    if (auto atom = classify(c, b->getLHS(), ctx.fn);
        atom && atom->spelling == Spelling::Literal) {
      RoleCtx bytes = ctx;
      bytes.role = SiteRole::VectorBytes;
      bytes.family = Family::vectorBytes();
      bytes.top = true;
      bytes.cap = false;
      walk(c, b->getLHS(), bytes);
    }
  auto l = walk(c, b->getLHS(), inner);
  auto r = walk(c, b->getRHS(), inner);
  if (!l || !r)
    return std::nullopt;
  llvm::StringRef op = b->getOpcodeStr();
  static const std::set<std::string> ops = {
      "+", "-", "*", "/", "%", "<", "<=", ">", ">=", "==", "!=", "&&", "||"};
  if (!ops.count(op.str()))
    return std::nullopt;
  return "(" + *l + " " + op.str() + " " + *r + ")";
}

/// `min(a, b)` or `max(a, b)`: both bounds stay in the role, as caps.
static std::optional<std::string> walkBounds(DetectContext &c,
                                             const std::string &fn,
                                             const Expr *a, const Expr *b,
                                             const RoleCtx &ctx) {
  RoleCtx bound = ctx;
  bound.cap = true;
  auto l = walk(c, a, bound);
  auto r = walk(c, b, bound);
  if (!l || !r)
    return std::nullopt;
  return fn + "(" + *l + ", " + *r + ")";
}

/// `a < b ? a : b` and its kin: "min" or "max", else empty.
static std::string minMaxOf(DetectContext &c, const Expr *cond,
                            const Expr *onTrue, const Expr *onFalse) {
  const auto *cmp = llvm::dyn_cast<BinaryOperator>(cond->IgnoreParenImpCasts());
  if (!cmp || !cmp->isRelationalOp() || !onTrue || !onFalse)
    return "";
  auto text = [&](const Expr *x) {
    return textOf(c, x->IgnoreParenImpCasts()->getSourceRange());
  };
  std::string l = text(cmp->getLHS()), r = text(cmp->getRHS());
  std::string t = text(onTrue), f = text(onFalse);
  if (l.empty() || r.empty() || l == r)
    return "";
  bool less = cmp->getOpcode() == BO_LT || cmp->getOpcode() == BO_LE;
  if (t == l && f == r) // a < b ? a : b
    return less ? "min" : "max";
  if (t == r && f == l) // a < b ? b : a
    return less ? "max" : "min";
  return "";
}

static std::optional<std::string>
walkConditional(DetectContext &c, const ConditionalOperator *cond,
                const RoleCtx &ctx) {
  // A cap written as a comparison: every bound stays in the role, like
  // std::min's (the bound in the condition and in its branch change
  // together).
  if (std::string fn = minMaxOf(c, cond->getCond(), cond->getTrueExpr(),
                                cond->getFalseExpr());
      !fn.empty()) {
    // The branches first: a bound spelled once and read twice (a macro's
    // argument, `dMIN(n, 1024)`) is recorded as the branch reads it, whole.
    auto bounds =
        walkBounds(c, fn, cond->getTrueExpr(), cond->getFalseExpr(), ctx);
    RoleCtx bound = ctx;
    bound.cap = true;
    walk(c, cond->getCond(), bound);
    return bounds;
  }
  RoleCtx inner = ctx;
  inner.top = inner.cap = false;
  // A block chosen between sizes (`num_tokens < 256 ? 1024 : 256`): each
  // branch is a block size (or the template argument) in its own right;
  // the condition's constants are thresholds, no sites.
  bool alternatives = (ctx.role == SiteRole::LaunchBlock ||
                       ctx.role == SiteRole::TemplateArg) &&
                      ctx.top;
  RoleCtx condition = inner;
  if (alternatives)
    condition.recordLiterals = false;
  auto test = walk(c, cond->getCond(), condition);
  auto t = walk(c, cond->getTrueExpr(), alternatives ? ctx : inner);
  auto f = walk(c, cond->getFalseExpr(), alternatives ? ctx : inner);
  if (!test || !t || !f)
    return std::nullopt;
  return "(" + *test + " ? " + *t + " : " + *f + ")";
}

std::optional<std::string> walkDim(DetectContext &c, const LaunchDim &dim,
                                   const RoleCtx &r) {
  if (!dim.condition && !dim.reads.empty()) {
    // `b.x = b.x / k;`: its earlier value where it reads b.x.
    std::map<const Expr *, std::shared_ptr<const LaunchDim>> priors;
    for (const Expr *read : dim.reads)
      priors[read] = dim.prior;
    RoleCtx inner = r;
    inner.priors = &priors;
    return walk(c, dim.value, inner);
  }
  if (!dim.condition)
    return dim.value ? walk(c, dim.value, r) : std::optional<std::string>("1");
  // `if (x <= 1024) b.x = x; else b.x = 1024;` is a cap, like std::min:
  // the bound in the condition changes with its branch. Otherwise each
  // branch is a value of the dim and the condition's constants thresholds.
  const Expr *onTrue =
      dim.then && !dim.then->condition ? dim.then->value : nullptr;
  const Expr *onFalse = dim.otherwise && !dim.otherwise->condition
                            ? dim.otherwise->value
                            : nullptr;
  RoleCtx condition = r;
  condition.top = false;
  condition.cap = !minMaxOf(c, dim.condition, onTrue, onFalse).empty();
  condition.recordLiterals = condition.cap;
  auto test = walk(c, dim.condition, condition);
  auto branch = [&](const std::shared_ptr<const LaunchDim> &b) {
    return b ? walkDim(c, *b, r) : std::optional<std::string>("1");
  };
  auto a = branch(dim.then), b = branch(dim.otherwise);
  if (!test || !a || !b)
    return std::nullopt;
  return "(" + *test + " ? " + *a + " : " + *b + ")";
}

/// A grid helper whose body is one `return` of arithmetic on its parameters
/// and one tunable constant (`return (size + kBlock - 1) / kBlock;`): its
/// call as a site of that constant, replaced by the body written out with
/// the arguments and the parameter (`((n) + {P} - 1) / {P}`), so the grid
/// follows the block. Host code: the kernel's PTX is unchanged. Anything
/// else in the body (calls but std::min/max, other variables, a second
/// tunable constant) refuses, and the constant keeps its value.
static std::optional<Atom>
inlinedHelperCall(DetectContext &c, const CallExpr *call,
                  const FunctionDecl *def,
                  const std::vector<std::pair<const Expr *, Atom>> &named) {
  const auto *body = llvm::dyn_cast_or_null<CompoundStmt>(def->getBody());
  const auto *ret = body && body->size() == 1
                        ? llvm::dyn_cast<ReturnStmt>(body->body_front())
                        : nullptr;
  const Expr *value = ret ? ret->getRetValue() : nullptr;
  if (!value || def->isVariadic() || def->isTemplated() ||
      def->getNumParams() != call->getNumArgs() ||
      !call->getBeginLoc().isFileID() || !call->getEndLoc().isFileID() ||
      // Macros the body expands are defined where the call is.
      !c.SM.isBeforeInTranslationUnit(def->getEndLoc(), call->getBeginLoc()))
    return std::nullopt;
  const Atom *tunable = nullptr;
  std::map<const Expr *, const Atom *> readAt;
  for (const auto &[e, atom] : named) {
    readAt[e] = &atom;
    if (isFixedByHardware(atom.constantName))
      continue;
    if (atom.derivedBases != 0 ||
        (tunable && tunable->constant != atom.constant))
      return std::nullopt;
    tunable = &atom;
  }
  auto callRange = fileRange(c, call->getSourceRange());
  const Expr *returned = value->IgnoreImplicit();
  auto valueRange = fileRange(c, returned->getSourceRange());
  if (!tunable || !callRange || !valueRange)
    return std::nullopt;

  // Each argument as the parameter's type would see it.
  std::map<const ParmVarDecl *, std::pair<const Expr *, std::string>> args;
  for (unsigned i = 0; i < call->getNumArgs(); ++i) {
    const Expr *arg = call->getArg(i);
    const ParmVarDecl *param = def->getParamDecl(i);
    auto at = llvm::isa<CXXDefaultArgExpr>(arg)
                  ? std::nullopt
                  : fileRange(c, arg->getSourceRange());
    if (!at || param->getType()->isReferenceType())
      return std::nullopt;
    std::string t = text(c, at->first, at->second);
    QualType want = param->getType().getUnqualifiedType().getCanonicalType();
    QualType have = arg->IgnoreImplicit()
                        ->getType()
                        .getUnqualifiedType()
                        .getCanonicalType();
    const Expr *bare = arg->IgnoreImplicit();
    if (want != have)
      t = "static_cast<" + castSpelling(c.Ctx, param->getType()) + ">(" + t +
          ")";
    else if (!llvm::isa<DeclRefExpr, IntegerLiteral>(bare))
      t = "(" + t + ")";
    args[param] = {arg, t};
  }

  std::vector<std::tuple<Position, unsigned, std::string>> edits;
  std::map<const ParmVarDecl *, int> uses;
  auto constantValue = [&](const Expr *e) -> std::optional<std::string> {
    Expr::EvalResult result;
    if (e->isValueDependent() || !e->EvaluateAsInt(result, c.Ctx))
      return std::nullopt;
    return std::to_string(result.Val.getInt().getExtValue());
  };
  std::function<bool(const Stmt *)> visit = [&](const Stmt *s) -> bool {
    const auto *e = llvm::dyn_cast<Expr>(s);
    if (!e)
      return false;
    if (auto it = readAt.find(e); it != readAt.end()) {
      const Atom &a = *it->second;
      auto v = constantValue(e);
      if (a.constant != tunable->constant && !v)
        return false;
      edits.emplace_back(a.offset, a.length,
                         a.constant == tunable->constant ? "{P}" : *v);
      return true;
    }
    if (const auto *ref = llvm::dyn_cast<DeclRefExpr>(e)) {
      const auto *param = llvm::dyn_cast<ParmVarDecl>(ref->getDecl());
      auto at = fileRange(c, ref->getSourceRange());
      if (param && args.count(param) && at) {
        ++uses[param];
        edits.emplace_back(at->first, at->second, args[param].second);
        return true;
      }
      // A constant of the helper's scope: its value (its name may not be
      // visible where the call is).
      auto v = constantValue(e);
      if (!v || !at || param)
        return false;
      edits.emplace_back(at->first, at->second, *v);
      return true;
    }
    if (const auto *b = llvm::dyn_cast<BinaryOperator>(e);
        b && (b->isAssignmentOp() || b->isCommaOp()))
      return false;
    if (const auto *u = llvm::dyn_cast<UnaryOperator>(e);
        u && (u->isIncrementDecrementOp() || u->getOpcode() == UO_Deref ||
              u->getOpcode() == UO_AddrOf))
      return false;
    if (const auto *cast = llvm::dyn_cast<ExplicitCastExpr>(e);
        cast && !cast->getType()->isArithmeticType())
      return false;
    // std::min / std::max: the same functions where the call is.
    if (const auto *inner = llvm::dyn_cast<CallExpr>(e)) {
      const FunctionDecl *f = inner->getDirectCallee();
      std::string name = f ? f->getNameAsString() : "";
      auto at = fileRange(c, inner->getCallee()->getSourceRange());
      if (!f || !f->isInStdNamespace() || (name != "min" && name != "max") ||
          !at || text(c, at->first, at->second).rfind("std::", 0) != 0)
        return false;
      for (const Expr *arg : inner->arguments())
        if (!visit(arg))
          return false;
      return true;
    }
    if (!llvm::isa<ParenExpr, ImplicitCastExpr, MaterializeTemporaryExpr,
                   BinaryOperator, UnaryOperator, ConditionalOperator,
                   CStyleCastExpr, CXXStaticCastExpr, CXXFunctionalCastExpr,
                   IntegerLiteral, CharacterLiteral>(e))
      return false;
    for (const Stmt *child : s->children())
      if (!child || !visit(child))
        return false;
    return true;
  };
  if (!visit(returned))
    return std::nullopt;
  for (const auto &[param, use] : uses)
    if (use > 1 && args[param].first->HasSideEffects(c.Ctx))
      return std::nullopt;

  // The body's text, edited.
  std::ranges::sort(edits);
  Position at = valueRange->first, end = valueRange->first + valueRange->second;
  std::string out;
  for (const auto &[pos, length, replacement] : edits) {
    if (filePart(pos) != filePart(at) || pos < at || pos + length > end)
      return std::nullopt;
    out += text(c, at, pos - at) + replacement;
    at = pos + length;
  }
  out += text(c, at, end - at);
  QualType returns = def->getReturnType().getCanonicalType();
  if (returns.getUnqualifiedType() !=
      returned->getType().getCanonicalType().getUnqualifiedType())
    out = "static_cast<" + castSpelling(c.Ctx, def->getReturnType()) + ">(" +
          out + ")";
  else if (out.rfind("static_cast<", 0) == 0)
    out = "(" + out + ")"; // a cast's replacement is taken as one operand

  Atom site;
  site.spelling = tunable->spelling;
  site.offset = callRange->first;
  site.length = callRange->second;
  site.text = text(c, site.offset, site.length);
  site.value = site.baseValue = tunable->value;
  site.constant = site.baseConstant = tunable->constant;
  site.constantName = site.baseName = tunable->constantName;
  site.valueType = tunable->valueType;
  site.derivedBases = 1;
  site.replacement = out;
  return site;
}

/// A host helper computing a launch's grid (`GET_BLOCKS(n)`) or block
/// (`blocksize(n)`) may read the block's constant itself. Through a default
/// argument (`int threads = THREADS_PER_BLOCK`) the call is a site: the
/// parameter is passed (`GET_BLOCKS(n, P)`). Read in its body, the call is
/// written out where it can be (inlinedHelperCall); elsewhere the launch
/// cannot follow, and a kernel that runs with that block, or whose result
/// depends on its grid, keeps that constant. Returns the block's
/// translation where the call is the parameter itself.
static std::optional<std::string> launchHelperConstants(DetectContext &c,
                                                        const CallExpr *call,
                                                        const RoleCtx &ctx,
                                                        bool top) {
  const FunctionDecl *callee = call->getDirectCallee();
  auto kernel = c.Sink.Facts.functions.find(ctx.kernelId);
  if (!callee || callee->hasAttr<CUDADeviceAttr>() ||
      callee->hasAttr<CUDAGlobalAttr>() ||
      kernel == c.Sink.Facts.functions.end())
    return std::nullopt;
  // A block always matters; a grid where the kernel needs it to cover its
  // data.
  bool block = ctx.role == SiteRole::LaunchBlock;
  bool gridMatters = block || !kernel->second.gridStride;
  std::set<std::string> seen;
  auto keep = [&](const Atom &atom, const std::string &how) {
    if (!gridMatters || isFixedByHardware(atom.constantName) ||
        !seen.insert(atom.constant).second)
      return;
    c.GridHelperReads.emplace_back(
        ctx.kernelId, atom.constant,
        noteAt(
            c, call->getBeginLoc(),
            (block ? "the block is computed by " : "the grid is computed by ") +
                callee->getNameAsString() + ", which reads " +
                atom.constantName + " " + how + " (" +
                c.Sink.Facts.pathOf(filePart(atom.offset)) + ":" +
                std::to_string(lineCol(c, atom.offset).first) + "), and " +
                kernel->second.qualifiedName +
                (block ? " runs with that block: " : " depends on its grid: ") +
                atom.constantName + " keeps its value in it (pass it to " +
                callee->getNameAsString() + " to tune it)"));
  };
  unsigned given = 0;
  while (given < call->getNumArgs() &&
         !llvm::isa<CXXDefaultArgExpr>(call->getArg(given)))
    ++given;
  for (unsigned i = given; i < call->getNumArgs(); ++i) {
    const auto *d = llvm::dyn_cast<CXXDefaultArgExpr>(call->getArg(i));
    auto atom = d ? classify(c, d->getExpr(), nullptr) : std::nullopt;
    if (!atom || atom->spelling == Spelling::Literal || atom->localVar)
      continue;
    auto at = call->getRParenLoc().isFileID()
                  ? positionOf(c, call->getRParenLoc())
                  : std::nullopt;
    if (i != given || !at) {
      keep(*atom, "as a default argument");
      continue;
    }
    atom->offset = *at;
    atom->length = 0;
    atom->text.clear();
    atom->before = given ? ", " : "";
    walkAtom(c, *atom, ctx);
  }
  const FunctionDecl *def = callee->getDefinition();
  if (!gridMatters || !def || !def->hasBody() ||
      c.SM.isInSystemHeader(c.SM.getExpansionLoc(def->getLocation())))
    return std::nullopt;
  struct Reads : RecursiveASTVisitor<Reads> {
    std::vector<const Expr *> Named;
    bool VisitDeclRefExpr(DeclRefExpr *e) {
      Named.push_back(e);
      return true;
    }
    bool VisitIntegerLiteral(IntegerLiteral *l) {
      if (l->getLocation().isMacroID())
        Named.push_back(l);
      return true;
    }
  } reads;
  reads.TraverseStmt(def->getBody());
  std::vector<std::pair<const Expr *, Atom>> named;
  for (const Expr *e : reads.Named)
    if (auto atom = classify(c, e, def);
        atom && atom->spelling != Spelling::Literal && !atom->localVar)
      named.emplace_back(e, *atom);
  if (auto site = inlinedHelperCall(c, call, def, named)) {
    // `blocksize(n)` returning the constant: the block is the parameter.
    bool whole = site->replacement == "{P}";
    RoleCtx as = ctx;
    as.top = whole && top;
    record(c, *site, as, ctx.role, std::nullopt);
    if (whole)
      return marker(site->offset);
    return std::nullopt;
  }
  for (const auto &[e, atom] : named)
    keep(atom, "itself");
  return std::nullopt;
}

static std::optional<std::string>
walkCall(DetectContext &c, const CallExpr *call, const RoleCtx &ctx) {
  // std::min / std::max / min / max: the bounds stay in the role (caps).
  std::string name = calleeName(call);
  if ((name == "min" || name == "max" || name == "fminf" || name == "fmaxf") &&
      call->getNumArgs() == 2) {
    std::string fn = name == "fminf" ? "min" : name == "fmaxf" ? "max" : name;
    return walkBounds(c, fn, call->getArg(0), call->getArg(1), ctx);
  }
  RoleCtx inner = ctx;
  inner.top = inner.cap = false;
  if (isCeilDivName(name) && call->getNumArgs() == 2) {
    auto a = walk(c, call->getArg(0), inner);
    auto b = walk(c, call->getArg(1), inner);
    if (!a || !b)
      return std::nullopt;
    return "ceil_div(" + *a + ", " + *b + ")";
  }
  // Still record the constants among the arguments (no translation).
  for (const Expr *arg : call->arguments())
    walk(c, arg, inner);
  if ((ctx.role == SiteRole::LaunchGrid || ctx.role == SiteRole::LaunchBlock) &&
      !ctx.placeholders)
    return launchHelperConstants(c, call, inner, ctx.top);
  return std::nullopt;
}

/// Records the constants in a role expression and translates it into the
/// expression language (markers for recorded sites). Local constants are
/// followed into their initialisers, as if written inline.
std::optional<std::string> walk(DetectContext &c, const Expr *e, RoleCtx ctx) {
  if (!e)
    return std::nullopt;
  if (ctx.priors)
    if (auto it = ctx.priors->find(e->IgnoreParenImpCasts());
        it != ctx.priors->end()) {
      if (!it->second)
        return std::string("1");
      RoleCtx before = ctx;
      before.priors = nullptr;
      auto t = walkDim(c, *it->second, before);
      if (!t)
        return std::nullopt;
      return "(" + *t + ")";
    }
  if (auto atom = classify(c, e, ctx.fn))
    return walkAtom(c, *atom, ctx);
  if (auto t = callerTemplateArgument(c, e, ctx))
    return t;
  if (auto param = kernelArgument(c, e, ctx))
    return param;

  const Expr *s = e->IgnoreParenImpCasts();
  if (const auto *p = llvm::dyn_cast<ParenExpr>(s)) // not stripped: keep top
    return walk(c, p->getSubExpr(), ctx);
  if (const auto *cast = llvm::dyn_cast<ExplicitCastExpr>(s)) {
    if (!cast->getType()->isIntegralOrEnumerationType())
      return std::nullopt;
    return walk(c, cast->getSubExpr(), ctx);
  }
  if (const auto *lit = llvm::dyn_cast<IntegerLiteral>(s))
    return std::to_string(lit->getValue().getSExtValue());
  if (const auto *sz = llvm::dyn_cast<UnaryExprOrTypeTraitExpr>(s)) {
    // sizeof of a type the launch passes as the kernel's T: `sizeof(T)`.
    if (sz->getKind() == UETT_SizeOf && sz->isArgumentType() && ctx.typeToParam)
      for (const auto &[type, name] : *ctx.typeToParam)
        if (type == sz->getArgumentType())
          return "sizeof(" + name + ")";
    Expr::EvalResult r;
    if (!sz->isValueDependent() && sz->EvaluateAsInt(r, c.Ctx))
      return std::to_string(r.Val.getInt().getExtValue());
    return std::nullopt;
  }
  if (const auto *ref = llvm::dyn_cast<DeclRefExpr>(s))
    return walkName(c, ref, ctx);
  if (const auto *u = llvm::dyn_cast<UnaryOperator>(s))
    return walkUnary(c, u, ctx);
  if (const auto *b = llvm::dyn_cast<BinaryOperator>(s))
    return walkBinary(c, b, ctx);
  if (const auto *cond = llvm::dyn_cast<ConditionalOperator>(s))
    return walkConditional(c, cond, ctx);
  if (const auto *call = llvm::dyn_cast<CallExpr>(s))
    return walkCall(c, call, ctx);
  // Anything else: record what is inside, no translation.
  RoleCtx inner = ctx;
  inner.top = inner.cap = false;
  for (const Stmt *child : s->children())
    if (const auto *ce = llvm::dyn_cast_or_null<Expr>(child))
      walk(c, ce, inner);
  return std::nullopt;
}

} // namespace ktune::refactor
