//===- LaunchHelpers.cpp - Functions that launch the kernel they get ------===//
//
// A function whose body launches its parameters (`launch_with(kernel, grid,
// block, stream, args...)`, directly, through cudaLaunchKernel or through
// another helper), or one declared with a kernel, a grid and a block among
// its parameters and defined in another file, is a launch helper: a call of
// it is read as the launch it makes, geometry included, also when the
// geometry is a field of a launch-parameter struct (`p.block_dims`).
//
//===----------------------------------------------------------------------===//

#include "DetectInternal.h"
#include "KernelExprs.h"

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

namespace {

/// The functions a call may call: its callee, or in a template every
/// candidate of its unresolved name that takes as many arguments.
std::vector<const FunctionDecl *> calleeCandidates(const CallExpr *call) {
  if (const FunctionDecl *f = call->getDirectCallee())
    return {f};
  const auto *over =
      llvm::dyn_cast<OverloadExpr>(call->getCallee()->IgnoreImplicit());
  if (!over)
    return {};
  std::vector<const FunctionDecl *> out;
  for (const NamedDecl *d : over->decls()) {
    d = d->getUnderlyingDecl();
    const FunctionDecl *f =
        llvm::isa<FunctionTemplateDecl>(d)
            ? llvm::cast<FunctionTemplateDecl>(d)->getTemplatedDecl()
            : llvm::dyn_cast<FunctionDecl>(d);
    if (!f)
      continue;
    bool variadic = f->isVariadic() ||
                    (f->getNumParams() > 0 &&
                     f->getParamDecl(f->getNumParams() - 1)->isParameterPack());
    if (call->getNumArgs() >= f->getMinRequiredArguments() &&
        (variadic || call->getNumArgs() <= f->getNumParams()))
      out.push_back(f);
  }
  return out;
}

/// A type that can carry a kernel: a function pointer, `void *`, a driver
/// `CUfunction`, or a template's type.
bool carriesKernel(QualType t) {
  t = t.getNonReferenceType();
  if (t->isDependentType() || t->isFunctionPointerType())
    return true;
  QualType pointee = t->getPointeeType();
  if (pointee.isNull())
    return false;
  if (pointee->isVoidType())
    return true;
  const RecordDecl *r = pointee->getAsRecordDecl();
  return r && r->getName() == "CUfunc_st";
}

bool geometryType(QualType t) {
  t = t.getNonReferenceType().getUnqualifiedType();
  if (t->isDependentType() || t->isIntegerType())
    return true;
  const RecordDecl *r = t->getAsRecordDecl();
  return r && r->getName() == "dim3";
}

/// A helper whose body is not read (defined in another file, or in a
/// header whose bodies the parser skips), `void add_kernel_node(void *func,
/// dim3 grid_dim, dim3 block_dim, uint32_t smem_bytes, void **params)`:
/// read from its parameters' names and types, the kernel's arguments
/// unknown.
std::optional<LaunchHelper> declaredHelper(const FunctionDecl *fd) {
  LaunchHelper h;
  h.argsKnown = false;
  for (const ParmVarDecl *p : fd->parameters()) {
    std::string name = llvm::StringRef(p->getName()).lower();
    llvm::StringRef n(name);
    int i = static_cast<int>(p->getFunctionScopeIndex());
    if (h.kernel < 0) {
      bool named = n.contains("kernel") || n.contains("func") || n == "f" ||
                   n == "fn" || n == "k";
      if (carriesKernel(p->getType()) &&
          (named || p->getType()->isFunctionPointerType()))
        h.kernel = i;
      continue;
    }
    bool gridName = n.contains("grid") || n == "blocks" || n == "nblocks" ||
                    n == "n_blocks" || n == "num_blocks" || n == "numblocks";
    bool blockName = !gridName && (n.contains("block") ||
                                   n.contains("thread") || n == "tpb");
    bool smemName =
        n.contains("smem") || n.contains("shared") || n.contains("shmem");
    if (gridName && h.grid < 0 && h.block < 0 && geometryType(p->getType()))
      h.grid = i;
    else if (blockName && h.grid >= 0 && h.block < 0 &&
             geometryType(p->getType()))
      h.block = i;
    else if (smemName && h.block >= 0 && h.smem < 0 &&
             p->getType()->isIntegerType())
      h.smem = i;
  }
  if (h.kernel < 0 || h.grid < 0 || h.block < 0)
    return std::nullopt;
  return h;
}

std::optional<LaunchHelper> launchHelperAt(DetectContext &c,
                                           const FunctionDecl *fd, int depth);

/// One launch in `fd`'s body, each part mapped to `fd`'s parameters.
class HelperBody {
public:
  HelperBody(DetectContext &c, const FunctionDecl *fd, int depth)
      : C(c), Fd(fd), Depth(depth) {}

  /// `kernel<<<grid, block, smem>>>(args...)`.
  std::optional<LaunchHelper> chevron(const CUDAKernelCallExpr *k) {
    LaunchHelper h;
    h.kernel = parameterIndex(Fd, k->getCallee());
    const CallExpr *config = k->getConfig();
    if (h.kernel < 0 || !config || config->getNumArgs() < 2 ||
        !geometry(h, config->getArg(0), config->getArg(1),
                  config->getNumArgs() >= 3 ? config->getArg(2) : nullptr))
      return std::nullopt;
    for (const Expr *a : k->arguments()) {
      if (const auto *pack = llvm::dyn_cast<PackExpansionExpr>(a)) {
        h.pack = parameterIndex(Fd, pack->getPattern());
        if (h.pack < 0 || a != k->getArg(k->getNumArgs() - 1))
          return std::nullopt;
        continue;
      }
      int i = parameterIndex(Fd, a);
      if (i < 0)
        return std::nullopt;
      h.args.push_back(i);
    }
    return h;
  }

  /// `cudaLaunchKernel((void *)func, grid, block, args, smem, stream)`.
  std::optional<LaunchHelper> api(const CallExpr *call) {
    if (launchApiName(call) != "cudaLaunchKernel" || call->getNumArgs() < 5)
      return std::nullopt;
    LaunchHelper h;
    h.argsKnown = false;
    h.kernel = parameterIndex(Fd, stripCasts(call->getArg(0)));
    if (h.kernel < 0 ||
        !geometry(h, call->getArg(1), call->getArg(2), call->getArg(4)))
      return std::nullopt;
    return h;
  }

  /// A call of another launch helper with this one's parameters.
  std::optional<LaunchHelper> forwarded(const CallExpr *call) {
    std::optional<LaunchHelper> inner;
    for (const FunctionDecl *callee : calleeCandidates(call)) {
      if (callee == Fd)
        return std::nullopt;
      auto h = launchHelperAt(C, callee, Depth + 1);
      if (!h || (inner && !sameGeometry(*inner, *h)))
        return std::nullopt;
      if (!inner)
        inner = h;
      else if (inner->args != h->args || inner->pack != h->pack ||
               inner->argsKnown != h->argsKnown)
        inner->argsKnown = false;
    }
    if (!inner || static_cast<unsigned>(inner->kernel) >= call->getNumArgs())
      return std::nullopt;
    auto at = [&](int i) -> const Expr * {
      return i >= 0 && static_cast<unsigned>(i) < call->getNumArgs() &&
                     !llvm::isa<CXXDefaultArgExpr>(call->getArg(i))
                 ? call->getArg(i)
                 : nullptr;
    };
    if (!inner->gridField.empty() || !inner->blockField.empty() ||
        !inner->smemField.empty())
      return std::nullopt; // fields of a struct built here: not followed
    LaunchHelper h;
    h.kernel = parameterIndex(Fd, stripCasts(call->getArg(inner->kernel)));
    if (h.kernel < 0 || !at(inner->grid) || !at(inner->block) ||
        !geometry(h, at(inner->grid), at(inner->block), at(inner->smem)))
      return std::nullopt;
    h.argsKnown = inner->argsKnown;
    for (int i : inner->args) {
      int j = at(i) ? parameterIndex(Fd, at(i)) : -1;
      if (j < 0)
        h.argsKnown = false;
      h.args.push_back(j);
    }
    if (inner->pack >= 0) {
      const auto *pack =
          llvm::dyn_cast_or_null<PackExpansionExpr>(at(inner->pack));
      h.pack = pack ? parameterIndex(Fd, pack->getPattern()) : -1;
      if (h.pack < 0 ||
          static_cast<unsigned>(inner->pack) + 1 != call->getNumArgs())
        h.argsKnown = false;
    }
    if (!h.argsKnown) {
      h.args.clear();
      h.pack = -1;
    }
    return h;
  }

  static bool sameGeometry(const LaunchHelper &a, const LaunchHelper &b) {
    return a.kernel == b.kernel && a.grid == b.grid && a.block == b.block &&
           a.smem == b.smem && a.gridField == b.gridField &&
           a.blockField == b.blockField && a.smemField == b.smemField;
  }

private:
  int param(const Expr *e, std::string &field) {
    int i = parameterIndex(Fd, e);
    return i >= 0 ? i : parameterField(Fd, e, field);
  }

  /// Grid and block from parameters; dynamic shared memory from one, or a
  /// constant (absent, or computed inside: not read).
  bool geometry(LaunchHelper &h, const Expr *grid, const Expr *block,
                const Expr *smem) {
    h.grid = param(grid, h.gridField);
    h.block = param(block, h.blockField);
    if (h.grid < 0 || h.block < 0)
      return false;
    if (smem && !llvm::isa<CXXDefaultArgExpr>(smem)) {
      h.smem = param(smem, h.smemField);
      if (h.smem < 0 && !smem->isValueDependent() &&
          !smem->isIntegerConstantExpr(C.Ctx))
        return false;
      if (h.smem < 0 && smem->isValueDependent())
        return false;
    }
    return true;
  }

  DetectContext &C;
  const FunctionDecl *Fd;
  int Depth;
};

std::optional<LaunchHelper> launchHelperAt(DetectContext &c,
                                           const FunctionDecl *fd, int depth) {
  if (!fd || depth > 3 || !runsOnHost(fd) ||
      c.SM.isInSystemHeader(c.SM.getExpansionLoc(fd->getLocation())))
    return std::nullopt;
  // Only a function that can be handed a kernel: most calls stop here.
  if (std::none_of(
          fd->param_begin(), fd->param_end(),
          [](const ParmVarDecl *p) { return carriesKernel(p->getType()); }))
    return std::nullopt;
  // Read, never rewritten: a helper of the project's headers too.
  // Defined in another file, or a header's body the parser skipped.
  const FunctionDecl *def = definitionOf(c, fd);
  if (!def || !def->getBody())
    return declaredHelper(fd);
  struct Launches : RecursiveASTVisitor<Launches> {
    std::vector<const CUDAKernelCallExpr *> Chevrons;
    std::vector<const CallExpr *> Calls;
    bool VisitCallExpr(CallExpr *call) {
      if (const auto *k = llvm::dyn_cast<CUDAKernelCallExpr>(call))
        Chevrons.push_back(k);
      else
        Calls.push_back(call);
      return true;
    }
  } launches;
  launches.TraverseStmt(def->getBody());
  HelperBody body(c, def, depth);
  std::vector<LaunchHelper> found;
  for (const CUDAKernelCallExpr *k : launches.Chevrons) {
    auto h = body.chevron(k);
    if (!h)
      return std::nullopt;
    found.push_back(*h);
  }
  for (const CallExpr *call : launches.Calls) {
    // A launch API call whose kernel is not a parameter is not this
    // helper's launch, and makes it none.
    std::optional<LaunchHelper> h;
    if (!launchApiName(call).empty()) {
      h = body.api(call);
      if (!h)
        return std::nullopt;
    } else if (llvm::any_of(call->arguments(), [&](const Expr *a) {
                 return parameterIndex(def, stripCasts(a)) >= 0;
               })) {
      h = body.forwarded(call);
    }
    if (h)
      found.push_back(*h);
  }
  if (found.empty())
    return std::nullopt;
  LaunchHelper h = found.front();
  for (const LaunchHelper &other : found) {
    if (!HelperBody::sameGeometry(h, other))
      return std::nullopt;
    if (other.args != h.args || other.pack != h.pack ||
        other.argsKnown != h.argsKnown) {
      h.argsKnown = false;
      h.args.clear();
      h.pack = -1;
    }
  }
  return h;
}

} // namespace

std::optional<LaunchHelper> launchHelper(DetectContext &c,
                                         const FunctionDecl *fd) {
  return launchHelperAt(c, fd, 0);
}

std::optional<LaunchView> helperLaunch(DetectContext &c, const CallExpr *call,
                                       const FunctionDecl *host) {
  // In a template the call may stay unresolved: one candidate is the helper.
  std::vector<const FunctionDecl *> callees = calleeCandidates(call);
  const FunctionDecl *callee = callees.size() == 1 ? callees.front() : nullptr;
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
  if (!h->argsKnown)
    return v;
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
