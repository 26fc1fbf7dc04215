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
// and the kernel may be named through a local (`auto kernel = K<V, T>;`) or
// picked from a local table of kernels (`kernel[t_size - 1]<<<g, b>>>()`).
// Launch helpers (LaunchHelpers.cpp) are read into the same shape.
//
//===----------------------------------------------------------------------===//

#include "DetectInternal.h"
#include "KernelExprs.h"

#include "clang/AST/ParentMapContext.h"

#include <map>
#include <set>

namespace ktune::refactor {

using namespace clang;

std::string launchApiName(const CallExpr *call) {
  std::string name = calleeName(call);
  if (name == "cudaLaunchKernelEx" || name == "cudaLaunchKernelExC")
    return "cudaLaunchKernelEx";
  if (name == "cudaLaunchKernel" || name == "cudaLaunchCooperativeKernel")
    return name;
  return {};
}

/// See KernelExprs.h.
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

namespace {

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

std::vector<const Expr *> kernelTableEntries(DetectContext &c,
                                             const Expr *callee,
                                             const FunctionDecl *host) {
  const auto *sub =
      llvm::dyn_cast<ArraySubscriptExpr>(callee->IgnoreParenImpCasts());
  const auto *ref =
      sub ? llvm::dyn_cast<DeclRefExpr>(sub->getBase()->IgnoreParenImpCasts())
          : nullptr;
  const auto *var = ref ? llvm::dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  if (!var || !var->isLocalVarDecl() || !var->getType()->isArrayType() ||
      !var->getInit() || !host || !isEffectivelyConst(c, var, host))
    return {};
  const auto *list =
      llvm::dyn_cast<InitListExpr>(var->getInit()->IgnoreParenImpCasts());
  if (!list || list->getNumInits() == 0)
    return {};
  std::vector<const Expr *> out;
  for (const Expr *init : list->inits()) {
    const Expr *named = stripCasts(init);
    if (!kernelNamed(named))
      return {}; // a null entry, or a host function: not only kernels
    out.push_back(named);
  }
  return out;
}

PickedKernels pickedKernels(DetectContext &c, const Expr *callee,
                            const FunctionDecl *host) {
  const auto *ref = llvm::dyn_cast<DeclRefExpr>(callee->IgnoreParenImpCasts());
  const auto *var = ref ? llvm::dyn_cast<VarDecl>(ref->getDecl()) : nullptr;
  if (!var || !var->isLocalVarDecl() || !var->getInit() || !host ||
      !isEffectivelyConst(c, var, host))
    return {};
  const auto *call = llvm::dyn_cast<CallExpr>(var->getInit()->IgnoreImplicit());
  const FunctionDecl *f = call ? call->getDirectCallee() : nullptr;
  const FunctionDecl *def = f ? f->getDefinition() : nullptr;
  if (!def || !def->hasBody() || llvm::isa<CXXMethodDecl>(def) ||
      def->isTemplateInstantiation() || isKernel(c, def) ||
      isDeviceHelper(c, def) || !inRewritableFile(c, def->getLocation()))
    return {};
  struct Returns : RecursiveASTVisitor<Returns> {
    std::vector<const ReturnStmt *> found;
    bool VisitReturnStmt(ReturnStmt *r) {
      found.push_back(r);
      return true;
    }
    bool TraverseLambdaExpr(LambdaExpr *) { return true; }
  } returns;
  returns.TraverseStmt(def->getBody());
  PickedKernels out;
  for (const ReturnStmt *r : returns.found) {
    const Expr *named =
        r->getRetValue() ? stripCasts(r->getRetValue()) : nullptr;
    if (!named || !kernelNamed(named))
      return {}; // a null pointer, or a host function: not only kernels
    out.entries.push_back(named);
  }
  if (!out.entries.empty()) {
    out.picker = def;
    out.call = call;
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

} // namespace ktune::refactor
