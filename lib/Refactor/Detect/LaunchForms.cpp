//===- LaunchForms.cpp - Every way host code launches a kernel ------------===//
//
// A launch is read into one shape, a LaunchView (kernel, the expression that
// names it, grid, block, dynamic shared memory, the kernel's arguments),
// whatever its spelling:
//
//   k<<<grid, block, smem, stream>>>(args...)
//   cudaLaunchKernelEx(&config, k, args...)      geometry in config's fields
//   cudaLaunchKernel((void *)k, grid, block, args, smem, stream)
//   cudaLaunchCooperativeKernel(...)             the same, cooperative
//
// and the kernel may be named through a local (`auto kernel = K<V, T>;`).
// Dispatch macros are seen through: inside `switch (v) { case 16: {
// constexpr size_t V = 16; ... } }` the runtime `v` is the constant `V`.
//
//===----------------------------------------------------------------------===//

#include "DetectInternal.h"

#include "clang/AST/ParentMapContext.h"

#include <map>
#include <set>

namespace ktune::refactor {

using namespace clang;

std::string launchApiName(const CallExpr *call) {
  std::string name;
  if (const FunctionDecl *fd = call->getDirectCallee())
    name = fd->getNameAsString();
  else if (const auto *ule = llvm::dyn_cast<UnresolvedLookupExpr>(
               call->getCallee()->IgnoreParenImpCasts()))
    name = ule->getName().getAsString();
  if (name == "cudaLaunchKernelEx" || name == "cudaLaunchKernelExC")
    return "cudaLaunchKernelEx";
  if (name == "cudaLaunchKernel" || name == "cudaLaunchCooperativeKernel")
    return name;
  return {};
}

namespace {

const Expr *stripCasts(const Expr *e) {
  while (e) {
    e = e->IgnoreParenImpCasts();
    if (const auto *c = llvm::dyn_cast<ExplicitCastExpr>(e))
      e = c->getSubExpr();
    else if (const auto *u = llvm::dyn_cast<UnaryOperator>(e);
             u && u->getOpcode() == UO_AddrOf)
      e = u->getSubExpr();
    else
      return e;
  }
  return e;
}

/// The kernel a name refers to: a __global__ function, or the first
/// __global__ template among an unresolved name's candidates.
const FunctionDecl *kernelNamed(const Expr *e) {
  if (const auto *ref = llvm::dyn_cast<DeclRefExpr>(e)) {
    const auto *fd = llvm::dyn_cast<FunctionDecl>(ref->getDecl());
    return fd && fd->hasAttr<CUDAGlobalAttr>() ? fd : nullptr;
  }
  if (const auto *ule = llvm::dyn_cast<UnresolvedLookupExpr>(e))
    for (const NamedDecl *d : ule->decls()) {
      const FunctionDecl *f = nullptr;
      if (const auto *t = llvm::dyn_cast<FunctionTemplateDecl>(d))
        f = t->getTemplatedDecl();
      else
        f = llvm::dyn_cast<FunctionDecl>(d);
      if (f && f->hasAttr<CUDAGlobalAttr>())
        return f;
    }
  return nullptr;
}

/// A local array `void *args[] = {&a, &b}`: the kernel's arguments.
std::vector<const Expr *> argumentArray(const Expr *e) {
  std::vector<const Expr *> out;
  const auto *ref = llvm::dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
  const auto *var = ref ? llvm::dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  const auto *list =
      var && var->getInit()
          ? llvm::dyn_cast<InitListExpr>(var->getInit()->IgnoreParenImpCasts())
          : nullptr;
  if (!list)
    return out;
  for (const Expr *init : list->inits()) {
    const auto *u = llvm::dyn_cast<UnaryOperator>(init->IgnoreParenCasts());
    if (!u || u->getOpcode() != UO_AddrOf)
      return {};
    out.push_back(u->getSubExpr());
  }
  return out;
}

} // namespace

KernelName kernelReference(DetectContext &c, const Expr *e,
                           const FunctionDecl *host) {
  KernelName out;
  for (int depth = 0; e && depth < 4; ++depth) {
    e = stripCasts(e);
    if (const FunctionDecl *k = kernelNamed(e)) {
      out.ref = e;
      out.kernel = k;
      return out;
    }
    // `auto kernel = K<V, T>;`: a local that is never reassigned.
    const auto *ref = llvm::dyn_cast<DeclRefExpr>(e);
    const auto *var = ref ? llvm::dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
    if (!var || !var->isLocalVarDecl() || !var->getInit() ||
        !kernelNamed(stripCasts(var->getInit())) ||
        !isEffectivelyConst(c, var, host))
      return out;
    out.through = var;
    e = var->getInit();
  }
  return out;
}

void readLaunchConfig(DetectContext &c, const Expr *configArg,
                      const FunctionDecl *host, LaunchView &view) {
  const auto *ref = llvm::dyn_cast<DeclRefExpr>(stripCasts(configArg));
  const auto *var = ref ? llvm::dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  const RecordDecl *record = var ? var->getType()->getAsRecordDecl() : nullptr;
  if (!var || !record || !var->isLocalVarDecl() || !host->getBody()) {
    view.problem = "the launch configuration is not a local "
                   "cudaLaunchConfig_t";
    return;
  }
  // Fields by name: from an initialiser list, then from assignments.
  std::map<std::string, const Expr *> fields;
  std::set<std::string> twice;
  if (const auto *list = llvm::dyn_cast_or_null<InitListExpr>(
          var->getInit() ? var->getInit()->IgnoreImplicit() : nullptr)) {
    unsigned i = 0;
    for (const FieldDecl *f : record->fields()) {
      if (i >= list->getNumInits())
        break;
      const Expr *init = list->getInit(i++);
      if (!llvm::isa<ImplicitValueInitExpr>(init))
        fields[f->getNameAsString()] = init;
    }
  }
  struct Assignments : RecursiveASTVisitor<Assignments> {
    const VarDecl *Var;
    std::map<std::string, const Expr *> *Fields;
    std::set<std::string> *Twice;
    void assigned(const Expr *lhs, const Expr *rhs) {
      const auto *m = llvm::dyn_cast<MemberExpr>(lhs->IgnoreParenImpCasts());
      if (!m)
        return;
      const auto *base =
          llvm::dyn_cast<DeclRefExpr>(m->getBase()->IgnoreParenImpCasts());
      if (!base || base->getDecl() != Var)
        return;
      std::string name = m->getMemberDecl()->getNameAsString();
      if (Fields->count(name))
        Twice->insert(name);
      (*Fields)[name] = rhs;
    }
    bool VisitBinaryOperator(BinaryOperator *b) {
      if (b->getOpcode() == BO_Assign)
        assigned(b->getLHS(), b->getRHS());
      return true;
    }
    bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *op) {
      if (op->getOperator() == OO_Equal && op->getNumArgs() == 2)
        assigned(op->getArg(0), op->getArg(1));
      return true;
    }
  } assignments;
  assignments.Var = var;
  assignments.Fields = &fields;
  assignments.Twice = &twice;
  assignments.TraverseStmt(host->getBody());
  if (!twice.empty()) {
    view.problem = "field " + *twice.begin() + " of " + var->getNameAsString() +
                   " is assigned more than once";
    return;
  }
  auto field = [&](const char *name) -> const Expr * {
    auto it = fields.find(name);
    return it == fields.end() ? nullptr : it->second;
  };
  view.grid = field("gridDim");
  view.block = field("blockDim");
  view.smem = field("dynamicSmemBytes");
  if (!view.grid || !view.block)
    view.problem = "the launch configuration's gridDim or blockDim is not "
                   "set in this function";
}

std::optional<LaunchView> chevronLaunch(const CUDAKernelCallExpr *call) {
  LaunchView v;
  v.launch = call;
  v.call = call;
  v.form = CallForm::Chevron;
  v.named.ref = call->getCallee()->IgnoreParenImpCasts();
  v.named.kernel = call->getDirectCallee();
  if (!v.named.kernel)
    v.named.kernel = kernelNamed(v.named.ref);
  const CallExpr *config = call->getConfig();
  if (!config || config->getNumArgs() < 2) {
    v.problem = "the launch configuration is not visible";
  } else {
    v.grid = config->getArg(0);
    v.block = config->getArg(1);
    if (config->getNumArgs() >= 3 &&
        !llvm::isa<CXXDefaultArgExpr>(config->getArg(2)))
      v.smem = config->getArg(2);
  }
  for (const Expr *a : call->arguments())
    v.args.push_back(a);
  return v;
}

std::optional<LaunchView> apiLaunch(DetectContext &c, const CallExpr *call,
                                    const FunctionDecl *host) {
  std::string api = launchApiName(call);
  if (api.empty())
    return std::nullopt;
  LaunchView v;
  v.launch = call;
  v.form = api == "cudaLaunchKernelEx" ? CallForm::LaunchKernelEx
           : api == "cudaLaunchKernel" ? CallForm::LaunchKernel
                                       : CallForm::CooperativeKernel;
  unsigned n = call->getNumArgs();
  auto arg = [&](unsigned i) -> const Expr * {
    if (i >= n || llvm::isa<CXXDefaultArgExpr>(call->getArg(i)))
      return nullptr;
    return call->getArg(i);
  };
  if (api == "cudaLaunchKernelEx") {
    if (n < 2)
      return std::nullopt;
    v.named = kernelReference(c, call->getArg(1), host);
    readLaunchConfig(c, call->getArg(0), host, v);
    std::vector<const Expr *> array;
    if (n == 3)
      array = argumentArray(call->getArg(2)); // the C form: void **args
    if (!array.empty())
      v.args = array;
    else
      for (unsigned i = 2; i < n; ++i)
        v.args.push_back(call->getArg(i));
  } else {
    if (n < 3)
      return std::nullopt;
    v.named = kernelReference(c, call->getArg(0), host);
    v.grid = arg(1);
    v.block = arg(2);
    v.smem = arg(4);
    v.cooperative = api == "cudaLaunchCooperativeKernel";
    if (const Expr *a = arg(3))
      v.args = argumentArray(a);
  }
  if (!v.named.kernel)
    return std::nullopt;
  return v;
}

namespace {

/// The value of a constant local declared in `s` (a case's body) equal to
/// `value`, if there is one.
const VarDecl *constantEqualTo(DetectContext &c, const Stmt *s, int64_t value) {
  if (const auto *cs = llvm::dyn_cast_or_null<CompoundStmt>(s))
    for (const Stmt *child : cs->body())
      if (const auto *ds = llvm::dyn_cast<DeclStmt>(child))
        for (const Decl *d : ds->decls()) {
          const auto *var = llvm::dyn_cast<VarDecl>(d);
          if (!var || !var->getInit() ||
              !(var->isConstexpr() || var->getType().isConstQualified()) ||
              var->getInit()->isValueDependent())
            continue;
          Expr::EvalResult r;
          if (var->getInit()->EvaluateAsInt(r, c.Ctx) &&
              r.Val.getInt().getExtValue() == value)
            return var;
        }
  return nullptr;
}

const ValueDecl *variableOf(const Expr *e) {
  const auto *ref = llvm::dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
  return ref ? ref->getDecl() : nullptr;
}

std::optional<int64_t> intValue(DetectContext &c, const Expr *e) {
  Expr::EvalResult r;
  if (!e || e->isValueDependent() || !e->EvaluateAsInt(r, c.Ctx))
    return std::nullopt;
  return r.Val.getInt().getExtValue();
}

} // namespace

std::vector<DispatchedValue> dispatchedValues(DetectContext &c,
                                              const Stmt *at) {
  std::vector<DispatchedValue> out;
  DynTypedNode node = DynTypedNode::create(*at);
  const CaseStmt *inCase = nullptr;
  for (int depth = 0; depth < 64; ++depth) {
    auto parents = c.Ctx.getParents(node);
    if (parents.empty())
      break;
    node = parents[0];
    if (const auto *cs = node.get<CaseStmt>())
      inCase = cs;
    if (const auto *sw = node.get<SwitchStmt>(); sw && inCase) {
      const ValueDecl *v = variableOf(sw->getCond());
      auto label = intValue(c, inCase->getLHS());
      if (v && label)
        if (const VarDecl *k = constantEqualTo(c, inCase->getSubStmt(), *label))
          out.push_back({v, k});
      inCase = nullptr;
    }
    // `if (v == 8) { constexpr int V = 8; ... }`
    if (const auto *is = node.get<IfStmt>()) {
      const auto *cond = llvm::dyn_cast_or_null<BinaryOperator>(
          is->getCond() ? is->getCond()->IgnoreParenImpCasts() : nullptr);
      if (cond && cond->getOpcode() == BO_EQ) {
        const Expr *lhs = cond->getLHS(), *rhs = cond->getRHS();
        if (!variableOf(lhs))
          std::swap(lhs, rhs);
        const ValueDecl *v = variableOf(lhs);
        if (auto value = intValue(c, rhs); v && value)
          if (const VarDecl *k = constantEqualTo(c, is->getThen(), *value))
            out.push_back({v, k});
      }
    }
  }
  return out;
}

bool isDispatchedConstant(DetectContext &c, const VarDecl *var) {
  if (!var->isLocalVarDecl() || !var->getInit() ||
      !var->getType()->isIntegralOrEnumerationType() ||
      !(var->isConstexpr() || var->getType().isConstQualified()))
    return false;
  // Declared by a function-like macro (DISPATCH_*, BOOL_SWITCH): one per
  // case, each with its own value.
  SourceLocation loc = var->getLocation();
  if (loc.isMacroID() && c.SM.isMacroBodyExpansion(loc) &&
      c.SM.getSLocEntry(c.SM.getFileID(loc))
          .getExpansion()
          .isFunctionMacroExpansion())
    return true;
  // Written out: `case 8: { constexpr int V = 8; ...}`.
  auto parents = c.Ctx.getParents(*var);
  const DeclStmt *ds = parents.empty() ? nullptr : parents[0].get<DeclStmt>();
  if (!ds)
    return false;
  auto up = c.Ctx.getParents(*ds);
  if (up.empty() || !up[0].get<CompoundStmt>())
    return false;
  const CompoundStmt *body = up[0].get<CompoundStmt>();
  auto outer = c.Ctx.getParents(*body);
  if (outer.empty())
    return false;
  auto value = intValue(c, var->getInit());
  if (const auto *cs = outer[0].get<CaseStmt>())
    return value && intValue(c, cs->getLHS()) == value;
  if (const auto *is = outer[0].get<IfStmt>();
      is && is->getThen() == body && is->getCond()) {
    const auto *cond =
        llvm::dyn_cast<BinaryOperator>(is->getCond()->IgnoreParenImpCasts());
    return cond && cond->getOpcode() == BO_EQ && value &&
           (intValue(c, cond->getRHS()) == value ||
            intValue(c, cond->getLHS()) == value);
  }
  return false;
}

bool countsWarps(DetectContext &c, const Expr *e, const FunctionDecl *fn,
                 int depth) {
  if (!e || depth > 8)
    return false;
  e = e->IgnoreParenImpCasts();
  auto is32 = [&](const Expr *x) { return intValue(c, x) == 32; };
  if (const auto *b = llvm::dyn_cast<BinaryOperator>(e)) {
    if (b->getOpcode() == BO_Div && is32(b->getRHS()))
      return true;
    if (b->getOpcode() == BO_Shr && intValue(c, b->getRHS()) == 5)
      return true;
  }
  if (const auto *call = llvm::dyn_cast<CallExpr>(e)) {
    std::string name;
    if (const FunctionDecl *fd = call->getDirectCallee())
      name = fd->getNameAsString();
    else if (const auto *ule = llvm::dyn_cast<UnresolvedLookupExpr>(
                 call->getCallee()->IgnoreParenImpCasts()))
      name = ule->getName().getAsString();
    if (isCeilDivName(name) && call->getNumArgs() == 2 && is32(call->getArg(1)))
      return true;
  }
  if (const auto *ref = llvm::dyn_cast<DeclRefExpr>(e))
    if (const auto *var = llvm::dyn_cast<VarDecl>(ref->getDecl());
        var && var->isLocalVarDecl() && var->getInit() &&
        isEffectivelyConst(c, var, fn))
      return countsWarps(c, var->getInit(), fn, depth + 1);
  for (const Stmt *child : e->children())
    if (const auto *ce = llvm::dyn_cast_or_null<Expr>(child))
      if (countsWarps(c, ce, fn, depth + 1))
        return true;
  return false;
}

bool isCeilDivName(llvm::StringRef name) {
  std::string n;
  for (char ch : name.lower())
    if (ch != '_')
      n += ch;
  return n == "ceildiv" || n == "divceil" || n == "cdiv" || n == "divup" ||
         n == "divroundup" || n == "ceildivide";
}

} // namespace ktune::refactor

namespace ktune::refactor {

namespace {

/// The index of `fd`'s parameter that `e` names, through copies and
/// implicit conversions; -1 for anything else.
int parameterIndex(const FunctionDecl *fd, const Expr *e) {
  for (int depth = 0; e && depth < 6; ++depth) {
    e = e->IgnoreImplicit();
    if (const auto *m = llvm::dyn_cast<MaterializeTemporaryExpr>(e))
      e = m->getSubExpr();
    else if (const auto *c = llvm::dyn_cast<CXXConstructExpr>(e);
             c && c->getNumArgs() == 1)
      e = c->getArg(0);
    else
      break;
  }
  // `std::forward<Args>(args)` (unresolved in a template) or `std::move`:
  // the argument itself.
  if (const auto *call = llvm::dyn_cast_or_null<CallExpr>(e);
      call && call->getNumArgs() == 1) {
    std::string name;
    if (const FunctionDecl *f = call->getDirectCallee();
        f && f->isInStdNamespace())
      name = f->getName().str();
    else if (const auto *ule = llvm::dyn_cast<UnresolvedLookupExpr>(
                 call->getCallee()->IgnoreImplicit()))
      name = ule->getName().getAsString();
    if (name == "forward" || name == "move")
      e = call->getArg(0)->IgnoreImplicit();
  }
  const auto *ref = llvm::dyn_cast_or_null<DeclRefExpr>(e);
  const auto *p = ref ? llvm::dyn_cast<ParmVarDecl>(ref->getDecl()) : nullptr;
  if (!p || p->getDeclContext() != fd)
    return -1;
  return static_cast<int>(p->getFunctionScopeIndex());
}

/// `p.block_dims` with `p` a parameter of `fd`: its index and the field.
int parameterField(const FunctionDecl *fd, const Expr *e, std::string &field) {
  e = e->IgnoreImplicit();
  if (const auto *c = llvm::dyn_cast<CXXConstructExpr>(e);
      c && c->getNumArgs() == 1)
    e = c->getArg(0)->IgnoreImplicit();
  const auto *m = llvm::dyn_cast<MemberExpr>(e);
  if (!m || m->isArrow() || !llvm::isa<FieldDecl>(m->getMemberDecl()))
    return -1;
  int i = parameterIndex(fd, m->getBase());
  if (i >= 0)
    field = m->getMemberDecl()->getNameAsString();
  return i;
}

/// The value a launch-parameter struct gives `field`: through a constant
/// local, its constructor's member initialiser from a constructor
/// parameter, or an aggregate's initialiser list.
const Expr *fieldValue(DetectContext &c, const Expr *e,
                       const std::string &field, const FunctionDecl *host,
                       int depth = 0) {
  for (int i = 0; e && i < 8; ++i) {
    e = e->IgnoreImplicit();
    if (const auto *m = llvm::dyn_cast<MaterializeTemporaryExpr>(e))
      e = m->getSubExpr();
    else if (const auto *b = llvm::dyn_cast<CXXBindTemporaryExpr>(e))
      e = b->getSubExpr();
    else if (const auto *f = llvm::dyn_cast<CXXFunctionalCastExpr>(e))
      e = f->getSubExpr();
    else if (const auto *p = llvm::dyn_cast<ParenExpr>(e))
      e = p->getSubExpr();
    else
      break;
  }
  if (!e || depth > 4)
    return nullptr;
  if (const auto *ref = llvm::dyn_cast<DeclRefExpr>(e)) {
    const auto *var = llvm::dyn_cast<VarDecl>(ref->getDecl());
    if (var && var->isLocalVarDecl() && var->getInit() &&
        isEffectivelyConst(c, var, host))
      return fieldValue(c, var->getInit(), field, host, depth + 1);
    return nullptr;
  }
  if (const auto *ctor = llvm::dyn_cast<CXXConstructExpr>(e)) {
    const CXXConstructorDecl *decl = ctor->getConstructor();
    if (decl->isCopyOrMoveConstructor() && ctor->getNumArgs() == 1)
      return fieldValue(c, ctor->getArg(0), field, host, depth + 1);
    const FunctionDecl *body = nullptr;
    if (!decl->hasBody(body))
      return nullptr;
    const auto *def = llvm::dyn_cast<CXXConstructorDecl>(body);
    if (!def)
      return nullptr;
    for (const CXXCtorInitializer *init : def->inits())
      if (init->getMember() && init->getMember()->getName() == field) {
        int k = parameterIndex(def, init->getInit());
        if (k < 0 || static_cast<unsigned>(k) >= ctor->getNumArgs() ||
            llvm::isa<CXXDefaultArgExpr>(ctor->getArg(k)))
          return nullptr;
        return ctor->getArg(k);
      }
    return nullptr;
  }
  if (const auto *list = llvm::dyn_cast<InitListExpr>(e)) {
    const RecordDecl *record = list->getType()->getAsRecordDecl();
    if (!record)
      return nullptr;
    unsigned i = 0;
    for (const FieldDecl *f : record->fields())
      if (f->getName() == field)
        return i < list->getNumInits() ? list->getInit(i) : nullptr;
      else
        ++i;
  }
  return nullptr;
}

} // namespace

std::optional<LaunchHelper> launchHelper(DetectContext &c,
                                         const FunctionDecl *fd) {
  fd = fd ? definitionOf(c, fd) : nullptr;
  // Read, never rewritten: a helper of the project's headers too.
  if (!fd || !fd->getBody() ||
      c.SM.isInSystemHeader(c.SM.getExpansionLoc(fd->getLocation())))
    return std::nullopt;
  struct Launches : RecursiveASTVisitor<Launches> {
    std::vector<const CUDAKernelCallExpr *> Found;
    bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *k) {
      Found.push_back(k);
      return true;
    }
  } launches;
  launches.TraverseStmt(fd->getBody());
  if (launches.Found.size() != 1)
    return std::nullopt;
  const CUDAKernelCallExpr *k = launches.Found.front();
  LaunchHelper h;
  h.kernel = parameterIndex(fd, k->getCallee());
  const CallExpr *config = k->getConfig();
  if (h.kernel < 0 || !config || config->getNumArgs() < 2)
    return std::nullopt;
  auto param = [&](const Expr *e, std::string &field) {
    int i = parameterIndex(fd, e);
    return i >= 0 ? i : parameterField(fd, e, field);
  };
  h.grid = param(config->getArg(0), h.gridField);
  h.block = param(config->getArg(1), h.blockField);
  if (h.grid < 0 || h.block < 0)
    return std::nullopt;
  if (config->getNumArgs() >= 3 &&
      !llvm::isa<CXXDefaultArgExpr>(config->getArg(2))) {
    h.smem = param(config->getArg(2), h.smemField);
    if (h.smem < 0 && !config->getArg(2)->isIntegerConstantExpr(c.Ctx))
      return std::nullopt; // computed inside the helper: not read
  }
  for (const Expr *a : k->arguments()) {
    if (const auto *pack = llvm::dyn_cast<PackExpansionExpr>(a)) {
      h.pack = parameterIndex(fd, pack->getPattern());
      if (h.pack < 0 || a != k->getArg(k->getNumArgs() - 1))
        return std::nullopt;
      continue;
    }
    int i = parameterIndex(fd, a);
    if (i < 0)
      return std::nullopt;
    h.args.push_back(i);
  }
  return h;
}

std::optional<LaunchView> helperLaunch(DetectContext &c, const CallExpr *call,
                                       const FunctionDecl *host) {
  const FunctionDecl *callee = call->getDirectCallee();
  // In a template the call may stay unresolved: one candidate is the helper.
  if (const auto *ule = llvm::dyn_cast<UnresolvedLookupExpr>(
          call->getCallee()->IgnoreImplicit());
      !callee && ule && ule->getNumDecls() == 1) {
    const NamedDecl *d = (*ule->decls_begin())->getUnderlyingDecl();
    if (const auto *t = llvm::dyn_cast<FunctionTemplateDecl>(d))
      callee = t->getTemplatedDecl();
    else
      callee = llvm::dyn_cast<FunctionDecl>(d);
  }
  auto h = launchHelper(c, callee);
  if (!h || static_cast<unsigned>(h->kernel) >= call->getNumArgs())
    return std::nullopt;
  LaunchView v;
  v.launch = call;
  v.form = CallForm::LaunchHelper;
  v.named = kernelReference(c, call->getArg(h->kernel), host);
  if (!v.named.kernel)
    return std::nullopt;
  auto arg = [&](int i) -> const Expr * {
    if (i < 0 || static_cast<unsigned>(i) >= call->getNumArgs() ||
        llvm::isa<CXXDefaultArgExpr>(call->getArg(i)))
      return nullptr;
    return call->getArg(i);
  };
  auto geometry = [&](int i, const std::string &field) -> const Expr * {
    const Expr *e = arg(i);
    if (!e || field.empty())
      return e;
    const Expr *value = fieldValue(c, e, field, host);
    if (!value)
      v.problem = "cannot read the launch parameters' " + field;
    return value;
  };
  v.grid = geometry(h->grid, h->gridField);
  v.block = geometry(h->block, h->blockField);
  v.smem = geometry(h->smem, h->smemField);
  for (int i : h->args)
    v.args.push_back(arg(i));
  if (h->pack >= 0)
    for (unsigned i = h->pack; i < call->getNumArgs(); ++i)
      v.args.push_back(call->getArg(i));
  if (std::find(v.args.begin(), v.args.end(), nullptr) != v.args.end())
    v.args.clear();
  return v;
}

bool isEditableKernelUse(DetectContext &c, const Expr *ref,
                         const FunctionDecl *fn) {
  DynTypedNode node = DynTypedNode::create(*ref);
  for (int depth = 0; depth < 8; ++depth) {
    auto parents = c.Ctx.getParents(node);
    if (parents.empty())
      return false;
    node = parents[0];
    if (const auto *e = node.get<Expr>()) {
      if (const auto *call = llvm::dyn_cast<CallExpr>(e)) {
        if (isCudaRuntimeCall(call))
          return true;
        auto h = launchHelper(c, call->getDirectCallee());
        return h && static_cast<unsigned>(h->kernel) < call->getNumArgs() &&
               call->getArg(h->kernel)->IgnoreParenCasts() ==
                   ref->IgnoreParenCasts();
      }
      if (llvm::isa<ImplicitCastExpr>(e) || llvm::isa<ParenExpr>(e) ||
          llvm::isa<ExplicitCastExpr>(e) ||
          (llvm::isa<UnaryOperator>(e) &&
           llvm::cast<UnaryOperator>(e)->getOpcode() == UO_AddrOf))
        continue;
      return false;
    }
    // `auto kernel = K<...>;`: every use of the local must be editable.
    if (const auto *var = node.get<VarDecl>()) {
      if (!var->isLocalVarDecl() || !fn || !fn->getBody())
        return false;
      auto refs = referencesTo(var, fn->getBody());
      return std::all_of(refs.begin(), refs.end(), [&](auto *r) {
        return isEditableKernelUse(c, r, fn);
      });
    }
    return false;
  }
  return false;
}

} // namespace ktune::refactor
