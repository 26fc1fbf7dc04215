//===- LaunchHelpers.cpp - Functions that launch the kernel they get ------===//
//
// A function of the main file whose body is one launch of its parameters
// (`launch_with(kernel, grid, block, stream, args...)`) is a launch helper:
// a call of it is read as the launch it makes, geometry included, also when
// the geometry is a field of a launch-parameter struct (`p.block_dims`).
//
//===----------------------------------------------------------------------===//

#include "DetectInternal.h"

#include "clang/AST/ParentMapContext.h"

#include <map>
#include <set>

namespace ktune::refactor {

using namespace clang;

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

std::string whyNotFollowed(DetectContext &c, const FunctionDecl *launched) {
  if (!launched)
    return "launch of a kernel not defined in this file";
  if (const FunctionDecl *pattern = launched->getTemplateInstantiationPattern())
    launched = pattern;
  if (const FunctionTemplateDecl *t = launched->getPrimaryTemplate())
    launched = t->getTemplatedDecl();
  SourceLocation at = c.SM.getExpansionLoc(launched->getLocation());
  std::string name = launched->getQualifiedNameAsString();
  if (c.SM.isInMainFile(at))
    return "launch of " + name + ", a kernel not defined in this file";
  bool defined =
      launched->hasSkippedBody() || launched->doesThisDeclarationHaveABody();
  return "launch of " + name + ", a kernel " +
         (defined ? "defined" : "declared") + " in " +
         c.SM.getFilename(at).str() +
         (defined ? ", which ktune does not rewrite (a system header, or one "
                    "--header-filter keeps out)"
                  : ", not defined in the files read");
}

} // namespace ktune::refactor
