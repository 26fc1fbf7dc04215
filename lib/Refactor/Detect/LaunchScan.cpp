//===- LaunchScan.cpp - A <<<>>> launch: kernel, arguments, geometry ------===//
//
// A launch in the main file ties a host function to a kernel: its template
// arguments may be knobs (or a dispatch), its block dims are sites, and its
// geometry, read as expressions over the kernel's parameters, goes into the
// manifest and the implied constraints.
//
//===----------------------------------------------------------------------===//

#include "DetectInternal.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"
#include "clang/Lex/Lexer.h"

#include <algorithm>

namespace ktune::refactor {

using namespace clang;

std::string macroBodyOf(DetectContext &c, SourceLocation loc) {
  // Through the arguments of macros (a dispatch macro given a lambda) to
  // where the token was written: a macro's body, or the file.
  for (int depth = 0; loc.isMacroID() && depth < 32; ++depth) {
    if (c.SM.isMacroBodyExpansion(loc)) {
      if (!c.SM.getSLocEntry(c.SM.getFileID(loc))
               .getExpansion()
               .isFunctionMacroExpansion())
        return {};
      return Lexer::getImmediateMacroName(loc, c.SM, c.LO).str();
    }
    loc = c.SM.getImmediateSpellingLoc(loc);
  }
  return {};
}

std::string calleeMacroOf(DetectContext &c, const Expr *ref) {
  std::string macro = macroBodyOf(c, ref->getBeginLoc());
  if (!macro.empty())
    return macro;
  SourceLocation rAngle;
  if (const auto *d = llvm::dyn_cast<DeclRefExpr>(ref))
    rAngle = d->getRAngleLoc();
  else if (const auto *o = llvm::dyn_cast<OverloadExpr>(ref))
    rAngle = o->getRAngleLoc();
  return rAngle.isValid() ? macroBodyOf(c, rAngle) : std::string();
}

namespace {

/// Constants of a launch's geometry spelled in a function-like macro's body
/// cannot be lifted (every expansion shares the spelling): each gets a note.
void noteMacroConstants(DetectContext &c, const Expr *e,
                        const FunctionDecl *host, const std::string &kernel,
                        std::set<Position> &seen, int depth = 0) {
  if (!e || depth > 8)
    return;
  const Expr *s = e->IgnoreParenImpCasts();
  if (const auto *lit = llvm::dyn_cast<IntegerLiteral>(s)) {
    std::string macro = macroBodyOf(c, lit->getLocation());
    std::string liftable;
    if (macroBodyLiteral(c, lit, liftable))
      return; // a site, unless an expansion elsewhere says otherwise
    int64_t v = lit->getValue().getSExtValue();
    auto at = positionOf(c, lit->getLocation());
    if (!macro.empty() && v >= 2 && at && seen.insert(*at).second)
      c.Sink.note(noteAt(
          c, c.SM.getSpellingLoc(lit->getLocation()),
          "the launch of " + kernel + " on line " +
              std::to_string(lineCol(c, *at).first) + " uses " +
              std::to_string(v) + ", spelled in the body of macro " + macro +
              ": not lifted (every expansion shares it); pass it as a "
              "macro argument to tune it"));
    return;
  }
  if (const auto *ref = llvm::dyn_cast<DeclRefExpr>(s))
    if (const auto *var = llvm::dyn_cast<VarDecl>(ref->getDecl());
        var && var->isLocalVarDecl() && var->getInit() &&
        !isDispatchedConstant(c, var) && isEffectivelyConst(c, var, host))
      return noteMacroConstants(c, var->getInit(), host, kernel, seen,
                                depth + 1);
  for (const Stmt *child : s->children())
    if (const auto *ce = llvm::dyn_cast_or_null<Expr>(child))
      noteMacroConstants(c, ce, host, kernel, seen, depth + 1);
}

/// What the host passes for each kernel parameter, by variable, by text and
/// by type.
struct LaunchArguments {
  std::map<const ValueDecl *, std::string> varToParam;
  std::map<std::string, std::string> textToParam;
  std::vector<std::pair<QualType, std::string>> typeToParam;
  std::set<std::string> kernelNames;
};

LaunchArguments kernelArguments(DetectContext &c, const LaunchView &launch,
                                const FunctionDecl *kernel) {
  LaunchArguments out;
  for (const ParmVarDecl *p : kernel->parameters())
    out.kernelNames.insert(p->getNameAsString());
  for (unsigned i = 0; i < launch.args.size() && i < kernel->getNumParams();
       ++i) {
    std::string param = kernel->getParamDecl(i)->getNameAsString();
    if (param.empty())
      continue;
    const Expr *arg = launch.args[i]->IgnoreParenImpCasts();
    if (const auto *ref = llvm::dyn_cast<DeclRefExpr>(arg))
      out.varToParam.emplace(ref->getDecl(), param);
    std::string t = textOf(c, arg->getSourceRange());
    if (!t.empty())
      out.textToParam.emplace(t, param);
  }
  return out;
}

/// How a launch's geometry is read in `host`: the kernel's arguments and
/// the launcher parameters it names (collected in `hostNames`), block
/// literals grouped as blocks, every site read by the launch at `launchAt`.
RoleCtx launchContext(const FunctionDecl *host, const std::string &hostId,
                      const std::string &kernelId, const LaunchArguments &args,
                      std::set<std::string> &hostNames, Position launchAt) {
  RoleCtx base;
  base.fn = host;
  base.fnId = hostId;
  base.kernelId = kernelId;
  base.family = Family::block();
  base.varToParam = &args.varToParam;
  base.textToParam = &args.textToParam;
  base.typeToParam = &args.typeToParam;
  base.kernelNames = &args.kernelNames;
  base.hostNames = &hostNames;
  base.launch = launchAt;
  return base;
}

/// A configuration type passed as a launch's or a launcher's template
/// argument (`SpmmConfig<float, float4, 4, 32, 8>`, spelled there or by a
/// typedef or alias of the calling function): its integer arguments are
/// sites in the caller, each of the family of the class template's
/// parameter ("targ@<i>:SpmmConfig::kBlockItemsY_"); grouping keeps those
/// whose parameter is named like a knob. Only a project's class templates:
/// a library's types are not configurations this code chose.
void configTypeSites(DetectContext &c, TypeLoc tl, const FunctionDecl *caller,
                     const std::string &callerId, const std::string &kernelId,
                     Position launchAt) {
  for (int hop = 0; hop < 4 && !tl.isNull(); ++hop) {
    if (auto e = tl.getAs<ElaboratedTypeLoc>()) {
      tl = e.getNamedTypeLoc();
    } else if (auto q = tl.getAs<QualifiedTypeLoc>()) {
      tl = q.getUnqualifiedLoc();
    } else if (auto t = tl.getAs<TypedefTypeLoc>()) {
      // A typedef of the caller's own body: its spelling is this call's.
      const TypedefNameDecl *d = t.getTypedefNameDecl();
      if (d->getParentFunctionOrMethod() != caller || !d->getTypeSourceInfo())
        return;
      tl = d->getTypeSourceInfo()->getTypeLoc();
    } else {
      break;
    }
  }
  auto spec = tl.getAs<TemplateSpecializationTypeLoc>();
  if (!spec)
    return;
  const auto *td = llvm::dyn_cast_or_null<ClassTemplateDecl>(
      spec.getTypePtr()->getTemplateName().getAsTemplateDecl());
  if (!td || !inRewritableFile(c, td->getLocation()))
    return;
  const TemplateParameterList *params = td->getTemplateParameters();
  for (unsigned i = 0; i < spec.getNumArgs() && i < params->size(); ++i) {
    const auto *nt =
        llvm::dyn_cast<NonTypeTemplateParmDecl>(params->getParam(i));
    TemplateArgumentLoc a = spec.getArgLoc(i);
    if (!nt || nt->isParameterPack() || !nt->getType()->isIntegerType() ||
        nt->getType()->isBooleanType() ||
        a.getArgument().getKind() != TemplateArgument::Expression)
      continue;
    RoleCtx r;
    r.role = SiteRole::TemplateArg;
    r.family = Family(Family::Kind::TemplateArg, i,
                      td->getNameAsString() + "::" + nt->getNameAsString());
    r.fn = caller;
    r.fnId = callerId;
    r.kernelId = kernelId;
    r.launch = launchAt;
    walk(c, a.getSourceExpression(), r);
  }
}

/// The launch's explicit kernel template arguments: sites of the kernel's
/// parameters unless they select behaviour; host template parameters and
/// dispatched constants passed on (with the runtime values they stand
/// for) are named after the kernel's parameters, types too (for sizeof).
void templateArgumentSites(DetectContext &c, const LaunchView &launch,
                           const FunctionDecl *kernel, const FunctionDecl *host,
                           const std::string &hostId,
                           const std::string &kernelId, Position launchAt,
                           LaunchArguments &args) {
  std::vector<TemplateArgumentLoc> explicitArgs;
  const Expr *calleeExpr = launch.named.ref;
  if (const auto *ref = llvm::dyn_cast<DeclRefExpr>(calleeExpr))
    explicitArgs.assign(ref->template_arguments().begin(),
                        ref->template_arguments().end());
  else if (const auto *ule = llvm::dyn_cast<UnresolvedLookupExpr>(calleeExpr))
    explicitArgs.assign(ule->template_arguments().begin(),
                        ule->template_arguments().end());
  const FunctionTemplateDecl *kt = kernel->getDescribedFunctionTemplate();
  std::vector<DispatchedValue> dispatched = dispatchedValues(
      c, launch.named.through ? launch.named.ref : launch.launch);
  for (unsigned i = 0; i < explicitArgs.size(); ++i) {
    const TemplateArgumentLoc &a = explicitArgs[i];
    if (!kt || i >= kt->getTemplateParameters()->size())
      continue;
    std::string kernelParam =
        kt->getTemplateParameters()->getParam(i)->getNameAsString();
    if (a.getArgument().getKind() == TemplateArgument::Type) {
      if (const TypeSourceInfo *t = a.getTypeSourceInfo()) {
        args.typeToParam.emplace_back(t->getType(), kernelParam);
        configTypeSites(c, t->getTypeLoc(), host, hostId, kernelId, launchAt);
      }
      continue;
    }
    if (a.getArgument().getKind() != TemplateArgument::Expression)
      continue;
    const Expr *e = a.getSourceExpression();
    if (const auto *ref =
            llvm::dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts())) {
      if (llvm::isa<NonTypeTemplateParmDecl>(ref->getDecl()))
        args.varToParam.emplace(ref->getDecl(), kernelParam);
      for (const DispatchedValue &d : dispatched)
        if (d.constant == ref->getDecl()) {
          args.varToParam.emplace(d.constant, kernelParam);
          args.varToParam.emplace(d.runtime, kernelParam);
        }
    }
    if (sizesWork(kt->getTemplateParameters()->getParam(i), kernel))
      if (auto kf = c.Sink.Facts.functions.find(kernelId);
          kf != c.Sink.Facts.functions.end() &&
          i < kf->second.templateParams.size())
        kf->second.templateParams[i].sizesWork = true;
    if (selectsBehaviour(kt->getTemplateParameters()->getParam(i), kernel))
      continue;
    RoleCtx r;
    r.role = SiteRole::TemplateArg;
    r.family = Family::templateArg(i);
    r.boundParam = static_cast<int>(i);
    r.fn = host;
    r.fnId = hostId;
    r.kernelId = kernelId;
    r.launch = launchAt;
    walk(c, e, r);
  }
}

/// `dim3(32, num_warps)` with the warp count computed by dividing by 32:
/// the 32 is the warp's width, no knob.
bool warpWidthBlock(DetectContext &c, const std::vector<const Expr *> &dims,
                    const FunctionDecl *host) {
  if (dims.size() < 2)
    return false;
  auto first = classify(c, dims[0], host);
  if (!first || first->spelling != Spelling::Literal || first->value != 32)
    return false;
  for (size_t d = 1; d < dims.size(); ++d)
    if (countsWarps(c, dims[d], host))
      return true;
  return false;
}

/// The constant capping a grid: the literal or named bound of `min(x, C)`
/// (std::min, `x < C ? x : C`, both of whose Cs are returned), read through
/// a constant local's initialiser (`int blocks = min(..., 2048);`).
static std::vector<const Expr *> gridCap(DetectContext &c, const Expr *e,
                                         const FunctionDecl *host) {
  e = e->IgnoreParenImpCasts();
  if (const auto *ref = llvm::dyn_cast<DeclRefExpr>(e)) {
    const auto *var = llvm::dyn_cast<VarDecl>(ref->getDecl());
    if (!var || !var->isLocalVarDecl() || !var->getInit() ||
        !isEffectivelyConst(c, var, host))
      return {};
    e = var->getInit()->IgnoreParenImpCasts();
  }
  const Expr *a = nullptr, *b = nullptr, *compared = nullptr;
  if (const auto *call = llvm::dyn_cast<CallExpr>(e);
      call && calleeName(call) == "min" && call->getNumArgs() == 2) {
    a = call->getArg(0);
    b = call->getArg(1);
  } else if (const auto *cond = llvm::dyn_cast<ConditionalOperator>(e)) {
    const auto *cmp =
        llvm::dyn_cast<BinaryOperator>(cond->getCond()->IgnoreParenImpCasts());
    if (!cmp || (cmp->getOpcode() != BO_LT && cmp->getOpcode() != BO_LE))
      return {};
    auto same = [&](const Expr *x, const Expr *y) {
      return textOf(c, x->IgnoreParenImpCasts()->getSourceRange()) ==
             textOf(c, y->IgnoreParenImpCasts()->getSourceRange());
    };
    if (!same(cmp->getLHS(), cond->getTrueExpr()) ||
        !same(cmp->getRHS(), cond->getFalseExpr()))
      return {};
    a = cond->getTrueExpr();
    b = cond->getFalseExpr();
    compared = cmp->getRHS();
  } else {
    return {};
  }
  auto constant = [&](const Expr *x) -> const Expr * {
    auto atom = classify(c, x, host);
    if (!atom || atom->localVar || atom->derivedBases != 0)
      return nullptr;
    return x->IgnoreParenImpCasts();
  };
  const Expr *ca = constant(a), *cb = constant(b);
  if ((ca != nullptr) == (cb != nullptr))
    return {};
  if (ca)
    return {ca};
  if (compared)
    return {cb, compared->IgnoreParenImpCasts()};
  return {cb};
}

/// Grid and block dims as expressions (each kept only when all its dims
/// are known); their constants are sites either way.
void launchGeometry(DetectContext &c, const LaunchView &launch,
                    const FunctionDecl *host, const RoleCtx &base,
                    CallFacts &cf) {
  for (int which = 0; which < 2; ++which) {
    const Expr *dimsExpr = which == 0 ? launch.grid : launch.block;
    if (!dimsExpr)
      continue;
    SiteRole role = which == 0 ? SiteRole::LaunchGrid : SiteRole::LaunchBlock;
    std::vector<LaunchDim> dims;
    bool dimsOk = collectDims(c, dimsExpr, host, dims);
    if (!dimsOk || dims.empty() || dims.size() > 3) {
      cf.geometryError = std::string("cannot read the launch's ") +
                         (which == 0 ? "grid" : "block") + " dimensions";
      // A dim3 local changed where its value cannot be followed: say why
      // its constants are not lifted.
      const Expr *named = dimsExpr->IgnoreImplicit();
      if (const auto *copy = llvm::dyn_cast<CXXConstructExpr>(named);
          copy && copy->getNumArgs() == 1)
        named = copy->getArg(0)->IgnoreImplicit();
      if (const auto *ref = llvm::dyn_cast<DeclRefExpr>(named))
        if (ref->getType()->isRecordType())
          c.Sink.note(noteAt(
              c, c.SM.getSpellingLoc(ref->getLocation()),
              "the " + std::string(which == 0 ? "grid" : "block") + " `" +
                  ref->getDecl()->getNameAsString() +
                  "` of this launch is changed where its value cannot be "
                  "followed (in a loop, a switch, through a pointer or a "
                  "call): its constants are not lifted"));
      // Still record what the expression spells.
      RoleCtx r = base;
      r.role = role;
      walk(c, dimsExpr, r);
      continue;
    }
    std::vector<const Expr *> plain;
    for (const LaunchDim &d : dims)
      if (!d.condition && d.value)
        plain.push_back(d.value);
    bool warps = which == 1 && plain.size() == dims.size() &&
                 warpWidthBlock(c, plain, host);
    auto &target = which == 0 ? cf.grid : cf.block;
    bool complete = true;
    for (unsigned d = 0; d < dims.size(); ++d) {
      RoleCtx r = base;
      r.role = role;
      r.dim = static_cast<int>(d);
      if (warps && d == 0)
        r.recordLiterals = false;
      else if (warps)
        r.skipLiteral = 32;
      // A grid-stride kernel's grid x written as a literal: its own knob.
      auto kernel = c.Sink.Facts.functions.find(base.kernelId);
      const auto *literal = dims[d].value
                                ? llvm::dyn_cast<IntegerLiteral>(
                                      dims[d].value->IgnoreParenImpCasts())
                                : nullptr;
      // ... or as a local's initialiser (`int num_blocks = 64;`).
      if (const auto *ref = dims[d].value
                                ? llvm::dyn_cast<DeclRefExpr>(
                                      dims[d].value->IgnoreParenImpCasts())
                                : nullptr) {
        const auto *var = llvm::dyn_cast<VarDecl>(ref->getDecl());
        if (var && var->isLocalVarDecl() && var->getInit() &&
            isEffectivelyConst(c, var, host))
          literal = llvm::dyn_cast<IntegerLiteral>(
              var->getInit()->IgnoreParenImpCasts());
      }
      // ... or as a named constant of its own (`NUM_BLOCKS`).
      const Expr *named = nullptr;
      if (!literal && dims[d].value)
        if (auto atom = classify(c, dims[d].value, host);
            atom && atom->spelling != Spelling::Literal && !atom->localVar &&
            atom->derivedBases == 0)
          named = dims[d].value;
      bool gridStride = which == 0 && d == 0 && !launch.cooperative &&
                        kernel != c.Sink.Facts.functions.end() &&
                        kernel->second.gridStride;
      if (gridStride && (literal || named))
        if (auto at = positionOf(c, literal ? literal->getLocation()
                                            : named->getBeginLoc()))
          r.family = Family::gridSize(*at);
      // ... or as the cap of the grid the size asks for (`min((n + t - 1) /
      // t, 2048)`): the cap alone is the knob, the rest stays the problem's.
      if (gridStride && !literal && !named && dims[d].value)
        for (const Expr *cap : gridCap(c, dims[d].value, host))
          if (auto at = positionOf(c, cap->getBeginLoc())) {
            if (r.familyAt.empty())
              r.family = Family::gridSize(*at);
            r.familyAt.push_back(*at);
          }
      auto t = walkDim(c, dims[d], r);
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

void launchSmem(DetectContext &c, const LaunchView &launch, const RoleCtx &base,
                CallFacts &cf) {
  if (!launch.smem)
    return;
  RoleCtx r = base;
  r.role = SiteRole::LaunchSmem;
  auto t = walk(c, launch.smem, r);
  if (t)
    cf.smem = *t;
  else if (cf.geometryError.empty())
    cf.geometryError = "cannot express the dynamic shared memory size";
}

/// Constants the launch's grid and block helpers read in their bodies stay in
/// the kernel (launchHelperConstants): said where the kernel spells them.
void keepGridHelperConstants(DetectContext &c) {
  for (auto &[kernelId, constant, note] : c.GridHelperReads) {
    auto kernel = c.Sink.Facts.functions.find(kernelId);
    if (kernel == c.Sink.Facts.functions.end())
      continue;
    if (!kernel->second.keptConstants.insert(constant).second)
      continue;
    bool used = std::any_of(
        c.Sink.Occs.begin(), c.Sink.Occs.end(),
        [&, &kernelId = kernelId, &constant = constant](const auto &entry) {
          return entry.second.kernel == kernelId &&
                 entry.second.constant == constant;
        });
    if (used)
      c.Sink.note(note);
  }
  c.GridHelperReads.clear();
}

bool alreadySeen(const SourceFacts &facts, const CallFacts &cf) {
  return std::any_of(facts.calls.begin(), facts.calls.end(), [&](auto &o) {
    return o.offset == cf.offset && o.caller == cf.caller &&
           o.callee == cf.callee && o.form == cf.form;
  });
}

/// The configuration types a launcher template's call passes.
void callConfigTypeSites(DetectContext &c,
                         const DetectContext::TemplateCall &call,
                         const std::string &callerId,
                         const std::string &kernelId, Position launchAt) {
  for (const TemplateArgumentLoc &a : call.ref->template_arguments())
    if (a.getArgument().getKind() == TemplateArgument::Type &&
        a.getTypeSourceInfo())
      configTypeSites(c, a.getTypeSourceInfo()->getTypeLoc(), call.caller,
                      callerId, kernelId, launchAt);
}

/// A launcher template called with explicit arguments from several places
/// (`if (b <= 4) launch<half, 256, 8>(p); else launch<half, 128, 16>(p);`,
/// or once from each of two functions): each call is a launch of its own,
/// in its caller (a LauncherCall, with the caller's case of a configuration
/// table), whose sites are the call's arguments for the launcher's
/// parameters that size the launch or are passed on as the kernel's
/// template arguments. `real` is the launcher's own launch.
void scanLauncherCalls(DetectContext &c, const LaunchView &launch,
                       const FunctionDecl *launcher, const FunctionDecl *kernel,
                       CallFacts &real) {
  const FunctionTemplateDecl *lt = launcher->getDescribedFunctionTemplate();
  const FunctionTemplateDecl *kt = kernel->getDescribedFunctionTemplate();
  const auto &calls = launcherCalls(c, launcher);
  // Called once: the launcher's own launch is that call's, and a
  // configuration type the call passes is spelled in its caller.
  if (calls.size() == 1 && calls.front().ref && calls.front().caller)
    callConfigTypeSites(
        c, calls.front(),
        functionFacts(c, calls.front().caller, FunctionRole::Host).id,
        real.callee, real.offset);
  if (!lt || !kt || calls.size() < 2 || !launch.named.ref)
    return;
  llvm::ArrayRef<TemplateArgumentLoc> kernelArgs;
  if (const auto *ref = llvm::dyn_cast<DeclRefExpr>(launch.named.ref))
    kernelArgs = ref->template_arguments();
  else if (const auto *ule =
               llvm::dyn_cast<UnresolvedLookupExpr>(launch.named.ref))
    kernelArgs = ule->template_arguments();
  auto ownParam = [&](const Expr *e) -> const NonTypeTemplateParmDecl * {
    const auto *ref =
        e ? llvm::dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts()) : nullptr;
    const auto *nt =
        ref ? llvm::dyn_cast<NonTypeTemplateParmDecl>(ref->getDecl()) : nullptr;
    return nt && nt->getDepth() == lt->getTemplateParameters()->getDepth()
               ? nt
               : nullptr;
  };
  // The kernel's template arguments that are the launcher's parameters.
  std::map<unsigned, const NonTypeTemplateParmDecl *> passed;
  for (unsigned i = 0;
       i < kernelArgs.size() && i < kt->getTemplateParameters()->size(); ++i)
    if (kernelArgs[i].getArgument().getKind() == TemplateArgument::Expression)
      if (const auto *nt = ownParam(kernelArgs[i].getSourceExpression()))
        passed.emplace(i, nt);
  real.setByCallers = true;
  for (const DetectContext::TemplateCall &call : calls) {
    if (!call.ref || !call.caller)
      continue;
    std::map<const NonTypeTemplateParmDecl *,
             std::pair<const Expr *, const FunctionDecl *>>
        callerArgs;
    // Parameter -> the argument as written, and where.
    std::map<std::string, std::pair<std::string, Position>> spelled;
    for (unsigned j = 0;
         j < call.args.size() && j < lt->getTemplateParameters()->size(); ++j) {
      const NamedDecl *param = lt->getTemplateParameters()->getParam(j);
      std::optional<Position> argAt;
      if (call.args[j])
        argAt = positionOf(c, call.args[j]->getBeginLoc());
      spelled[param->getNameAsString()] = {call.argTexts[j],
                                           argAt.value_or(Position())};
      if (const auto *nt = llvm::dyn_cast<NonTypeTemplateParmDecl>(param);
          nt && call.args[j])
        callerArgs.emplace(nt, std::make_pair(call.args[j], call.caller));
    }
    auto at = positionOf(c, call.ref->getLocation());
    if (!at)
      continue;
    FunctionFacts &callerFacts =
        functionFacts(c, call.caller, FunctionRole::Host);
    CallFacts cf;
    cf.isLaunch = true;
    cf.form = CallForm::LauncherCall;
    cf.cooperative = real.cooperative;
    cf.caller = callerFacts.id;
    cf.callee = real.callee;
    cf.launcher = functionFacts(c, launcher, FunctionRole::Host).id;
    cf.offset = *at;
    std::tie(cf.line, cf.col) = lineCol(c, *at);
    cf.insertOffset = *at;
    cf.macro = calleeMacroOf(c, call.ref);
    // The kernel's template arguments as this call makes them.
    for (const std::string &a : real.explicitArgs) {
      auto it = spelled.find(a);
      cf.explicitArgs.push_back(it == spelled.end() ? a : it->second.first);
      cf.explicitArgAt.push_back(it == spelled.end() ? Position()
                                                     : it->second.second);
    }
    cf.hasExplicitArgs = !cf.explicitArgs.empty();
    cf.explicitArgCount = static_cast<unsigned>(cf.explicitArgs.size());
    if (alreadySeen(c.Sink.Facts, cf))
      continue;

    // The geometry first: a constant sizing it and passed to the kernel
    // too is the launch's (its role wins ties), as with one call.
    LaunchArguments args = kernelArguments(c, launch, kernel);
    for (const auto &[i, nt] : passed)
      args.varToParam.emplace(
          nt, kt->getTemplateParameters()->getParam(i)->getNameAsString());
    std::set<std::string> hostNames;
    RoleCtx base = launchContext(launcher, real.caller, real.callee, args,
                                 hostNames, cf.offset);
    base.callerArgs = &callerArgs;
    cf.geometryError = launch.problem;
    launchGeometry(c, launch, launcher, base, cf);
    launchSmem(c, launch, base, cf);
    cf.hostNames.assign(hostNames.begin(), hostNames.end());

    for (const auto &[i, nt] : passed) {
      const NamedDecl *kp = kt->getTemplateParameters()->getParam(i);
      auto arg = callerArgs.find(nt);
      if (arg == callerArgs.end() || selectsBehaviour(kp, kernel))
        continue;
      if (sizesWork(kp, kernel))
        if (auto kf = c.Sink.Facts.functions.find(real.callee);
            kf != c.Sink.Facts.functions.end() &&
            i < kf->second.templateParams.size())
          kf->second.templateParams[i].sizesWork = true;
      RoleCtx r;
      r.role = SiteRole::TemplateArg;
      r.family = Family::templateArg(i);
      r.boundParam = static_cast<int>(i);
      r.fn = call.caller;
      r.fnId = callerFacts.id;
      r.kernelId = real.callee;
      r.launch = cf.offset;
      walk(c, arg->second.first, r);
    }
    callConfigTypeSites(c, call, callerFacts.id, real.callee, cf.offset);
    launchCase(c, call.ref, call.caller, cf);
    c.Sink.call(std::move(cf));
  }
}

} // namespace

void scanLaunch(DetectContext &c, const LaunchView &launch,
                const FunctionDecl *host) {
  if (!launch.named.kernel)
    return; // a launch helper's own launch of the kernel it is given
  const FunctionDecl *kernel = definitionOf(c, launch.named.kernel);
  if (!kernel || !inRewritableFile(c, kernel->getLocation())) {
    // Once, also when a dispatch macro expands the launch several times.
    std::string n = noteAt(c, launch.launch->getBeginLoc(),
                           whyNotFollowed(c, launch.named.kernel));
    if (std::find(c.Sink.Facts.notes.begin(), c.Sink.Facts.notes.end(), n) ==
        c.Sink.Facts.notes.end())
      c.Sink.note(std::move(n));
    return;
  }
  FunctionFacts &hostFacts = functionFacts(c, host, FunctionRole::Host);
  CallFacts cf;
  cf.isLaunch = true;
  cf.form = launch.form;
  cf.cooperative = launch.cooperative;
  cf.caller = hostFacts.id;
  cf.callee = idOf(c, kernel);
  describeCallee(c, launch.call, launch.named.ref, kernel, cf);
  // The picker's returns spell the kernel's template arguments: the launch
  // passes none, so it leaves none implicit.
  if ((cf.kernelArgsInPicker = launch.pickedElsewhere)) {
    cf.implicitArgs.clear();
    cf.implicitArgsError.clear();
  }
  // Once per spelling: a dispatch macro expands its body once per case.
  if (alreadySeen(c.Sink.Facts, cf))
    return;
  scanDeviceFunction(c, kernel);
  FunctionFacts &kernelFacts = functionFacts(c, kernel, FunctionRole::Kernel);
  cf.macro = calleeMacroOf(c, launch.named.ref);
  std::set<Position> noted;
  for (const Expr *e : {launch.grid, launch.block, launch.smem})
    noteMacroConstants(c, e, host, kernelFacts.qualifiedName, noted);

  LaunchArguments args = kernelArguments(c, launch, kernel);
  templateArgumentSites(c, launch, kernel, host, hostFacts.id, kernelFacts.id,
                        cf.offset, args);

  std::set<std::string> hostNames;
  RoleCtx base = launchContext(host, hostFacts.id, kernelFacts.id, args,
                               hostNames, cf.offset);
  cf.geometryError = launch.problem;
  // A grid spelled in the file (a macro's argument included, as in a
  // dispatch macro's lambda), not in a macro's body.
  if (launch.form == CallForm::Chevron && launch.grid &&
      !c.SM.isMacroBodyExpansion(launch.grid->getBeginLoc()) &&
      !c.SM.isMacroBodyExpansion(launch.grid->getEndLoc()))
    if (auto r = fileRange(c, launch.grid->getSourceRange())) {
      const Expr *written = launch.grid->IgnoreUnlessSpelledInSource();
      cf.gridArgOffset = r->first;
      cf.gridArgLength = r->second;
      cf.gridIsDim3 = written->getType()->getAsCXXRecordDecl() != nullptr;
    }
  launchGeometry(c, launch, host, base, cf);
  launchSmem(c, launch, base, cf);
  keepGridHelperConstants(c);
  cf.hostNames.assign(hostNames.begin(), hostNames.end());
  cf.argParams = launchArgParams(c, launch.args, host);
  launchCase(c, launch.launch, host, cf);
  scanLauncherCalls(c, launch, host, kernel, cf);
  c.Sink.call(std::move(cf));
}

void scanKernelReference(DetectContext &c, const Expr *ref,
                         const FunctionDecl *kernel, const FunctionDecl *host) {
  kernel = definitionOf(c, kernel);
  if (!kernel || !inRewritableFile(c, kernel->getLocation()))
    return;
  FunctionFacts &hostFacts = functionFacts(c, host, FunctionRole::Host);
  CallFacts cf;
  cf.form = CallForm::Reference;
  cf.caller = hostFacts.id;
  cf.callee = idOf(c, kernel);
  describeCallee(c, nullptr, ref, kernel, cf);
  if (alreadySeen(c.Sink.Facts, cf))
    return;
  scanDeviceFunction(c, kernel);
  functionFacts(c, kernel, FunctionRole::Kernel);
  cf.macro = calleeMacroOf(c, ref);
  c.Sink.call(std::move(cf));
}

} // namespace ktune::refactor
