//===- LauncherCallers.cpp - Launcher templates and their callers --------===//
//
// A host function template that launches a kernel with its own template
// parameter as the geometry (`template <int THREADS> void launch(...) {
// k<THREADS><<<g, THREADS>>>(...); }`) takes the value from its caller's
// explicit template argument (`launch<float, 256>(x, n)`): that argument is
// the constant the launch spells.
//
//===----------------------------------------------------------------------===//

#include "DetectInternal.h"

#include "clang/AST/RecursiveASTVisitor.h"

namespace ktune::refactor {

using namespace clang;

namespace {

class TemplateCallFinder : public RecursiveASTVisitor<TemplateCallFinder> {
public:
  TemplateCallFinder(DetectContext &c,
                     std::map<const FunctionTemplateDecl *,
                              std::vector<DetectContext::TemplateCall>> &out)
      : C(c), Out(out) {}

  bool TraverseFunctionDecl(FunctionDecl *fd) {
    // Host functions of the rewritable files that are no template (a
    // template's own calls are dependent); explicit specialisations are
    // read (their sites are refused later, with a note).
    if (!fd->doesThisDeclarationHaveABody() ||
        fd->getDescribedFunctionTemplate() || fd->isTemplateInstantiation() ||
        !runsOnHost(fd) || !inRewritableFile(C, fd->getLocation()))
      return true;
    const FunctionDecl *outer = Current;
    Current = fd;
    TraverseStmt(fd->getBody());
    Current = outer;
    return true;
  }
  bool TraverseCXXMethodDecl(CXXMethodDecl *) { return true; }

  bool VisitDeclRefExpr(DeclRefExpr *ref) {
    const auto *fd = llvm::dyn_cast<FunctionDecl>(ref->getDecl());
    if (!Current || !fd || !ref->hasExplicitTemplateArgs())
      return true;
    const FunctionTemplateDecl *ft = fd->getPrimaryTemplate();
    // A function of the template's name forwards to it with its defaults
    // (the overload that keeps a rewritten launcher's symbol): no choice.
    if (!ft || ft->getDeclName() == Current->getDeclName())
      return true;
    DetectContext::TemplateCall call;
    call.caller = Current;
    call.ref = ref;
    for (const TemplateArgumentLoc &a : ref->template_arguments()) {
      call.args.push_back(a.getArgument().getKind() ==
                                  TemplateArgument::Expression
                              ? a.getSourceExpression()
                              : nullptr);
      call.argTexts.push_back(textOf(C, a.getSourceRange()));
    }
    Out[ft->getCanonicalDecl()].push_back(std::move(call));
    return true;
  }

private:
  DetectContext &C;
  std::map<const FunctionTemplateDecl *,
           std::vector<DetectContext::TemplateCall>> &Out;
  const FunctionDecl *Current = nullptr;
};

} // namespace

const std::vector<DetectContext::TemplateCall> &
launcherCalls(DetectContext &c, const FunctionDecl *launcher) {
  static const std::vector<DetectContext::TemplateCall> none;
  const FunctionTemplateDecl *ft =
      launcher ? launcher->getDescribedFunctionTemplate() : nullptr;
  if (!ft || !runsOnHost(launcher))
    return none;
  if (!c.LauncherCalls) {
    c.LauncherCalls.emplace();
    TemplateCallFinder(c, *c.LauncherCalls)
        .TraverseDecl(c.Ctx.getTranslationUnitDecl());
  }
  auto it = c.LauncherCalls->find(ft->getCanonicalDecl());
  return it == c.LauncherCalls->end() ? none : it->second;
}

std::optional<std::pair<const Expr *, const FunctionDecl *>>
soleCallerArgument(DetectContext &c, const NonTypeTemplateParmDecl *param,
                   const FunctionDecl *launcher) {
  const FunctionTemplateDecl *ft =
      launcher ? launcher->getDescribedFunctionTemplate() : nullptr;
  if (!ft || param->getDepth() != ft->getTemplateParameters()->getDepth())
    return std::nullopt;
  const auto &calls = launcherCalls(c, launcher);
  if (calls.size() != 1)
    return std::nullopt; // uncalled, or several: each call is a launch
  const DetectContext::TemplateCall &call = calls.front();
  unsigned index = param->getIndex();
  if (index >= call.args.size() || !call.args[index])
    return std::nullopt; // deduced or defaulted there
  return std::make_pair(call.args[index], call.caller);
}

} // namespace ktune::refactor
