//===- LaunchScan.cpp - A <<<>>> launch: kernel, arguments, geometry ------===//
//
// A launch in the main file ties a host function to a kernel: its template
// arguments may be knobs (or a dispatch), its block dims are sites, and its
// geometry, read as expressions over the kernel's parameters, goes into the
// manifest and the implied constraints.
//
//===----------------------------------------------------------------------===//

#include "CollectInternal.h"

#include "clang/Lex/Lexer.h"

namespace ktune::refactor {

using namespace clang;

bool selectsBehaviour(const NamedDecl *param, const FunctionDecl *kernel) {
  const auto *nttp = llvm::dyn_cast<NonTypeTemplateParmDecl>(param);
  if (!nttp)
    return true; // types and templates are never tuning constants
  QualType t = nttp->getType();
  if (t->isEnumeralType() || t->isBooleanType())
    return true;
  struct Compared : RecursiveASTVisitor<Compared> {
    const NamedDecl *Param;
    bool Found = false;
    bool refersToParam(const Expr *e) const {
      const auto *ref = llvm::dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts());
      return ref && ref->getDecl() == Param;
    }
    bool VisitBinaryOperator(BinaryOperator *b) {
      if (b->isEqualityOp() &&
          (refersToParam(b->getLHS()) || refersToParam(b->getRHS())))
        Found = true;
      return !Found;
    }
    bool VisitSwitchStmt(SwitchStmt *s) {
      if (s->getCond() && refersToParam(s->getCond()))
        Found = true;
      return !Found;
    }
  } compared;
  compared.Param = nttp;
  if (kernel->getBody())
    compared.TraverseStmt(kernel->getBody());
  return compared.Found;
}

void Collector::collectDims(const Expr *e, const FunctionDecl *fn,
                            std::vector<const Expr *> &dims, bool &ok) {
  e = e->IgnoreImplicit();
  if (const auto *m = llvm::dyn_cast<MaterializeTemporaryExpr>(e))
    e = m->getSubExpr()->IgnoreImplicit();
  if (const auto *b = llvm::dyn_cast<CXXBindTemporaryExpr>(e))
    e = b->getSubExpr()->IgnoreImplicit();
  if (const auto *fc = llvm::dyn_cast<CXXFunctionalCastExpr>(e))
    e = fc->getSubExpr()->IgnoreImplicit();
  if (const auto *p = llvm::dyn_cast<ParenExpr>(e))
    return collectDims(p->getSubExpr(), fn, dims, ok);
  if (const auto *ctor = llvm::dyn_cast<CXXConstructExpr>(e)) {
    if (ctor->getNumArgs() == 1 && ctor->getArg(0)->getType()->isRecordType())
      return collectDims(ctor->getArg(0), fn, dims, ok);
    for (const Expr *a : ctor->arguments()) {
      if (llvm::isa<CXXDefaultArgExpr>(a))
        break;
      dims.push_back(a);
    }
    return;
  }
  if (const auto *list = llvm::dyn_cast<InitListExpr>(e)) {
    for (const Expr *a : list->inits())
      dims.push_back(a);
    return;
  }
  if (const auto *ref = llvm::dyn_cast<DeclRefExpr>(e)) {
    if (ref->getType()->isRecordType()) {
      const auto *var = llvm::dyn_cast<VarDecl>(ref->getDecl());
      if (var && var->isLocalVarDecl() && var->getInit() &&
          isEffectivelyConst(var, fn))
        return collectDims(var->getInit(), fn, dims, ok);
      ok = false;
      return;
    }
  }
  if (e->getType()->isIntegralOrEnumerationType()) {
    dims.push_back(e);
    return;
  }
  ok = false;
}

namespace {

/// A launch spelled in a function-like macro's body: one spelling for every
/// expansion, so nothing in it can become one launcher's parameter.
void noteLaunchInMacro(Collector &c, const CUDAKernelCallExpr *call) {
  SourceLocation loc = call->getBeginLoc();
  if (!loc.isMacroID() || !c.SM.isMacroBodyExpansion(loc) ||
      !c.SM.getSLocEntry(c.SM.getFileID(loc))
           .getExpansion()
           .isFunctionMacroExpansion())
    return;
  std::string macro = Lexer::getImmediateMacroName(loc, c.SM, c.LO).str();
  std::string kernel;
  if (const FunctionDecl *k = call->getDirectCallee())
    kernel = k->getNameAsString() + " ";
  c.Out.notes.push_back(c.note(
      call->getBeginLoc(),
      "launch of " + kernel + "inside function-like macro " + macro +
          ": its block size and other constants are not lifted (they "
          "would need a macro parameter); edit the macro or launch outside "
          "it to tune them"));
}

/// The kernel a launch names, also when the call is dependent.
const FunctionDecl *launchedKernel(const CUDAKernelCallExpr *call,
                                   const Expr *calleeExpr) {
  const FunctionDecl *callee = call->getDirectCallee();
  if (!callee)
    if (const auto *ule = llvm::dyn_cast<UnresolvedLookupExpr>(calleeExpr))
      for (const NamedDecl *d : ule->decls()) {
        const FunctionDecl *f = nullptr;
        if (const auto *t = llvm::dyn_cast<FunctionTemplateDecl>(d))
          f = t->getTemplatedDecl();
        else
          f = llvm::dyn_cast<FunctionDecl>(d);
        if (f && f->hasAttr<CUDAGlobalAttr>())
          callee = f;
      }
  return callee;
}

/// What the host passes for each kernel parameter, by variable and by text.
struct LaunchArguments {
  std::map<const ValueDecl *, std::string> varToParam;
  std::map<std::string, std::string> textToParam;
};

LaunchArguments kernelArguments(Collector &c, const CUDAKernelCallExpr *call,
                                const FunctionDecl *kernel) {
  LaunchArguments out;
  for (unsigned i = 0; i < call->getNumArgs() && i < kernel->getNumParams();
       ++i) {
    std::string param = kernel->getParamDecl(i)->getNameAsString();
    if (param.empty())
      continue;
    const Expr *arg = call->getArg(i)->IgnoreParenImpCasts();
    if (const auto *ref = llvm::dyn_cast<DeclRefExpr>(arg))
      out.varToParam.emplace(ref->getDecl(), param);
    std::string t = c.textOf(arg->getSourceRange());
    if (!t.empty())
      out.textToParam.emplace(t, param);
  }
  return out;
}

/// The launch's explicit kernel template arguments: sites of the kernel's
/// parameters unless they select behaviour; host template parameters
/// passed on are named after the kernel's.
void templateArgumentSites(Collector &c, const Expr *calleeExpr,
                           const FunctionDecl *kernel, const FunctionDecl *host,
                           const std::string &hostId,
                           const std::string &kernelId, LaunchArguments &args) {
  std::vector<TemplateArgumentLoc> explicitArgs;
  if (const auto *ref = llvm::dyn_cast<DeclRefExpr>(calleeExpr))
    explicitArgs.assign(ref->template_arguments().begin(),
                        ref->template_arguments().end());
  else if (const auto *ule = llvm::dyn_cast<UnresolvedLookupExpr>(calleeExpr))
    explicitArgs.assign(ule->template_arguments().begin(),
                        ule->template_arguments().end());
  const FunctionTemplateDecl *kt = kernel->getDescribedFunctionTemplate();
  for (unsigned i = 0; i < explicitArgs.size(); ++i) {
    const TemplateArgumentLoc &a = explicitArgs[i];
    if (a.getArgument().getKind() != TemplateArgument::Expression || !kt ||
        i >= kt->getTemplateParameters()->size())
      continue;
    const Expr *e = a.getSourceExpression();
    std::string kernelParam =
        kt->getTemplateParameters()->getParam(i)->getNameAsString();
    if (const auto *ref = llvm::dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts()))
      if (llvm::isa<NonTypeTemplateParmDecl>(ref->getDecl()))
        args.varToParam.emplace(ref->getDecl(), kernelParam);
    if (selectsBehaviour(kt->getTemplateParameters()->getParam(i), kernel))
      continue;
    RoleCtx r;
    r.role = SiteRole::TemplateArg;
    r.family = Family::templateArg(i);
    r.boundParam = static_cast<int>(i);
    r.fn = host;
    r.fnId = hostId;
    r.kernelId = kernelId;
    c.walk(e, r);
  }
}

/// Grid and block dims as expressions (each kept only when all its dims
/// are known); their constants are sites either way.
void launchGeometry(Collector &c, const CallExpr *config,
                    const FunctionDecl *host, const RoleCtx &base,
                    CallFacts &cf) {
  for (int which = 0; config && config->getNumArgs() >= 2 && which < 2;
       ++which) {
    SiteRole role = which == 0 ? SiteRole::LaunchGrid : SiteRole::LaunchBlock;
    std::vector<const Expr *> dims;
    bool dimsOk = true;
    c.collectDims(config->getArg(which), host, dims, dimsOk);
    if (!dimsOk || dims.empty() || dims.size() > 3) {
      cf.geometryError = std::string("cannot read the launch's ") +
                         (which == 0 ? "grid" : "block") + " dimensions";
      // Still record what the expression spells.
      RoleCtx r = base;
      r.role = role;
      c.walk(config->getArg(which), r);
      continue;
    }
    auto &target = which == 0 ? cf.grid : cf.block;
    bool complete = true;
    for (unsigned d = 0; d < dims.size(); ++d) {
      RoleCtx r = base;
      r.role = role;
      r.dim = static_cast<int>(d);
      auto t = c.walk(dims[d], r);
      if (!t) {
        cf.geometryError = "cannot express " +
                           std::string(which == 0 ? "grid" : "block") +
                           " dimension " + std::to_string(d) +
                           " in kernel arguments and constants";
        complete = false;
      } else {
        target.push_back(*t);
      }
    }
    if (!complete)
      target.clear();
  }
}

void launchSmem(Collector &c, const CallExpr *config, const RoleCtx &base,
                CallFacts &cf) {
  if (!config || config->getNumArgs() < 3 ||
      llvm::isa<CXXDefaultArgExpr>(config->getArg(2)))
    return;
  RoleCtx r = base;
  r.role = SiteRole::LaunchSmem;
  auto t = c.walk(config->getArg(2), r);
  if (t)
    cf.smem = *t;
  else if (cf.geometryError.empty())
    cf.geometryError = "cannot express the dynamic shared memory size";
}

} // namespace

std::string Collector::whyNotFollowed(const FunctionDecl *launched) {
  if (!launched)
    return "launch of a kernel not defined in this file";
  if (const FunctionDecl *pattern = launched->getTemplateInstantiationPattern())
    launched = pattern;
  if (const FunctionTemplateDecl *t = launched->getPrimaryTemplate())
    launched = t->getTemplatedDecl();
  SourceLocation at = SM.getExpansionLoc(launched->getLocation());
  std::string name = launched->getQualifiedNameAsString();
  if (SM.isInMainFile(at))
    return "launch of " + name + ", a kernel not defined in this file";
  bool defined =
      launched->hasSkippedBody() || launched->doesThisDeclarationHaveABody();
  return "launch of " + name + ", a kernel " +
         (defined ? "defined" : "declared") + " in " +
         SM.getFilename(at).str() +
         (defined ? ", which ktune does not rewrite (a system header, or one "
                    "--header-filter keeps out)"
                  : ", not defined in the files read");
}

void Collector::scanLaunch(const CUDAKernelCallExpr *call,
                           const FunctionDecl *host) {
  noteLaunchInMacro(*this, call);
  const Expr *calleeExpr = call->getCallee()->IgnoreParenImpCasts();
  const FunctionDecl *launched = launchedKernel(call, calleeExpr);
  const FunctionDecl *kernel = definitionOf(launched);
  if (!kernel || !inRewritableFile(kernel->getLocation())) {
    Out.notes.push_back(note(call->getBeginLoc(), whyNotFollowed(launched)));
    return;
  }
  scanDeviceFunction(kernel);
  FunctionFacts &kernelFacts = functionFacts(kernel, FunctionRole::Kernel);
  FunctionFacts &hostFacts = functionFacts(host, FunctionRole::Host);

  CallFacts cf;
  cf.isLaunch = true;
  cf.caller = hostFacts.id;
  cf.callee = kernelFacts.id;
  describeCallee(*this, call, calleeExpr, kernel, cf);

  LaunchArguments args = kernelArguments(*this, call, kernel);
  templateArgumentSites(*this, calleeExpr, kernel, host, hostFacts.id,
                        kernelFacts.id, args);

  RoleCtx base;
  base.fn = host;
  base.fnId = hostFacts.id;
  base.kernelId = kernelFacts.id;
  base.family = Family::block();
  base.varToParam = &args.varToParam;
  base.textToParam = &args.textToParam;
  const CallExpr *config = call->getConfig();
  if (!config || config->getNumArgs() < 2)
    cf.geometryError = "the launch configuration is not visible";
  launchGeometry(*this, config, host, base, cf);
  launchSmem(*this, config, base, cf);
  Out.calls.push_back(std::move(cf));
}

} // namespace ktune::refactor
