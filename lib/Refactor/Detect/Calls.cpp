//===- Calls.cpp - How a call names its callee ----------------------------===//
//
// A call of a kernel or helper that gains template parameters must name
// them: where its template argument list is (or goes), which arguments it
// spells, and those it leaves to deduction or defaults, spelled so they are
// valid at the call (LaunchTemplateArgs.cpp).
//
//===----------------------------------------------------------------------===//

#include "DetectInternal.h"
#include "LaunchTemplateArgs.h"

#include "clang/Lex/Lexer.h"

namespace ktune::refactor {

using namespace clang;

std::string calleeName(const CallExpr *call) {
  if (const FunctionDecl *fd = call->getDirectCallee())
    return fd->getNameAsString();
  if (const auto *ule = llvm::dyn_cast<UnresolvedLookupExpr>(
          call->getCallee()->IgnoreParenImpCasts()))
    return ule->getName().getAsString();
  return {};
}

void describeCallee(DetectContext &c, const CallExpr *call,
                    const Expr *calleeExpr, const FunctionDecl *def,
                    CallFacts &cf, bool typesAsWritten) {
  SourceLocation nameLoc;
  SourceLocation rAngle;
  unsigned explicitCount = 0;
  std::vector<std::string> explicitArgs;
  auto collectExplicit = [&](llvm::ArrayRef<TemplateArgumentLoc> args) {
    for (const auto &a : args)
      explicitArgs.push_back(textOf(c, a.getSourceRange()));
  };
  if (const auto *ref = llvm::dyn_cast<DeclRefExpr>(calleeExpr)) {
    nameLoc = ref->getLocation();
    if (ref->hasExplicitTemplateArgs()) {
      rAngle = ref->getRAngleLoc();
      explicitCount = ref->getNumTemplateArgs();
      collectExplicit(ref->template_arguments());
    }
  } else if (const auto *ule =
                 llvm::dyn_cast<UnresolvedLookupExpr>(calleeExpr)) {
    nameLoc = ule->getNameLoc();
    if (ule->hasExplicitTemplateArgs()) {
      rAngle = ule->getRAngleLoc();
      explicitCount = ule->getNumTemplateArgs();
      collectExplicit(ule->template_arguments());
    }
  }
  auto nameOff = positionOf(c, nameLoc);
  cf.offset = nameOff.value_or(0);
  auto [l, col] = lineCol(c, cf.offset);
  cf.line = l;
  cf.col = col;
  cf.explicitArgCount = explicitCount;
  cf.explicitArgs = explicitArgs;
  if (rAngle.isValid()) {
    cf.hasExplicitArgs = true;
    cf.insertOffset = positionOf(c, rAngle).value_or(0);
  } else if (nameOff) {
    cf.insertOffset = *nameOff + Lexer::MeasureTokenLength(
                                     c.SM.getFileLoc(nameLoc), c.SM, c.LO);
  }
  if (!nameOff || (rAngle.isValid() && !positionOf(c, rAngle)))
    cf.implicitArgsError = "the call is not spelled in this file";
  const FunctionDecl *resolved = call ? call->getDirectCallee() : nullptr;
  if (const auto *ref = llvm::dyn_cast<DeclRefExpr>(calleeExpr); !call && ref)
    resolved = llvm::dyn_cast<FunctionDecl>(ref->getDecl());
  if (const FunctionTemplateDecl *t = def->getDescribedFunctionTemplate())
    spellImplicitTemplateArgs(call, resolved, t, explicitCount, c.Ctx,
                              cf.implicitArgs, cf.implicitArgsError,
                              typesAsWritten);
}

} // namespace ktune::refactor
