//===- FixedArgs.cpp - Kernel arguments a compile-time value can replace --===//
//
// At decode sizes a kernel's time is latency, and much of it is index
// arithmetic over a run-time row length (`idx / (d / 8)`, `d - d % (n * 8)`):
// the same kernel compiled for d = 11008 turns those divisions into
// multiplications by constants. A fixed_arg parameter does that per shape:
// an integer argument passed by value and never written becomes, in the
// body, a constant of the same name,
//
//   __global__ void k(..., const int ktune_arg_d) {
//     const decltype(ktune_arg_d) d = FIXED_D != 0 ? FIXED_D : ktune_arg_d;
//     ...the body as written...
//
// and the dispatch header launches the FIXED_D = 11008 instantiation only
// where d is 11008. At 0, the default, `d` is the argument: the original
// code and PTX. Every read of `d` (in macros, lambdas, nested blocks) reads
// the new local, so nothing else in the body changes.
//
//===----------------------------------------------------------------------===//

#include "DetectInternal.h"

namespace ktune::refactor {

using namespace clang;

/// The prefix of a fixed argument's renamed parameter.
static constexpr const char *RenamedPrefix = "ktune_arg_";

void analyseFixableArgs(DetectContext &c, const FunctionDecl *def,
                        FunctionFacts &facts) {
  if (!facts.fixableArgs.empty())
    return; // the other side's pass read it
  const auto *body = llvm::dyn_cast_or_null<CompoundStmt>(def->getBody());
  for (unsigned i = 0; i < def->getNumParams(); ++i) {
    const ParmVarDecl *p = def->getParamDecl(i);
    QualType t = p->getType();
    // Integers by value that the body reads: what a shape fixes.
    if (p->getName().empty() || t->isDependentType() || !t->isIntegerType() ||
        t->isBooleanType() || t->isEnumeralType() || !body ||
        referencesTo(p, body).empty())
      continue;
    FixableArg a;
    a.index = i;
    a.name = p->getName().str();
    // Canonical: a typedef (`uint`) may not be visible where the tuner
    // spells the value.
    a.type = t.getCanonicalType().getUnqualifiedType().getAsString(
        c.Ctx.getPrintingPolicy());
    auto refuse = [&](SourceLocation at, const std::string &why) {
      a.refusal = noteAt(c, at, "argument " + a.name + " " + why);
    };
    auto name = positionOf(c, p->getLocation());
    auto open = positionOf(c, body->getLBracLoc());
    if (p->getLocation().isMacroID() || !name)
      refuse(p->getLocation(), "is declared in a macro: it cannot be renamed");
    else if (body->getLBracLoc().isMacroID() || !open)
      refuse(def->getLocation(), "cannot be fixed: the kernel's body is "
                                 "spelled in a macro");
    else if (!isEffectivelyConst(c, p, def))
      refuse(p->getLocation(),
             "may change in the kernel (written, or its address or a "
             "non-const reference taken): a constant cannot stand for it");
    else if (std::any_of(def->param_begin(), def->param_end(),
                         [&](const ParmVarDecl *q) {
                           return q->getName() == RenamedPrefix + a.name;
                         }))
      refuse(p->getLocation(), "cannot be renamed: another parameter has the "
                               "name it would take");
    if (a.refusal.empty()) {
      a.nameAt = *name;
      a.nameLength = static_cast<unsigned>(p->getName().size());
      a.bodyOpen = *open;
      std::tie(a.line, a.col) = lineCol(c, *name);
    }
    facts.fixableArgs.push_back(std::move(a));
  }
}

std::vector<std::string> launchArgParams(DetectContext &c,
                                         const std::vector<const Expr *> &args,
                                         const FunctionDecl *host) {
  std::vector<std::string> out;
  for (const Expr *e : args) {
    const auto *ref =
        e ? llvm::dyn_cast<DeclRefExpr>(e->IgnoreParenImpCasts()) : nullptr;
    const auto *p = ref ? llvm::dyn_cast<ParmVarDecl>(ref->getDecl()) : nullptr;
    bool own = p && host &&
               std::find(host->param_begin(), host->param_end(), p) !=
                   host->param_end();
    out.push_back(own && p->getType()->isIntegerType() &&
                          isEffectivelyConst(c, p, host)
                      ? p->getName().str()
                      : std::string());
  }
  return out;
}

} // namespace ktune::refactor
