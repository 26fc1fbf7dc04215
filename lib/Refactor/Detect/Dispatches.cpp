//===- Dispatches.cpp - Runtime values a dispatch made constants ----------===//
//
// Dispatch macros are seen through: inside `switch (v) { case 16: {
// constexpr size_t V = 16; ... } }` (or `if (v == 16) {...}`) the runtime
// `v` is the constant `V`, and such constants, one per case, are data, never
// knobs. Also here: whether an expression counts warps (it divides by 32).
//
//===----------------------------------------------------------------------===//

#include "DetectInternal.h"

#include "clang/AST/ParentMapContext.h"

#include <map>
#include <set>

namespace ktune::refactor {

using namespace clang;

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

/// Every read of `var`, a local a macro's body declares, is in that body
/// (of the same expansion), none in the code the macro was given.
static bool readOnlyInItsMacroBody(DetectContext &c, const VarDecl *var) {
  const auto *fn =
      llvm::dyn_cast_or_null<FunctionDecl>(var->getParentFunctionOrMethod());
  if (!fn || !fn->getBody())
    return false;
  SourceLocation expansion = c.SM.getExpansionLoc(var->getLocation());
  std::string macro = macroBodyOf(c, var->getLocation());
  for (const DeclRefExpr *r : referencesTo(var, fn->getBody()))
    if (!r->getLocation().isMacroID() ||
        !c.SM.isMacroBodyExpansion(r->getLocation()) ||
        c.SM.getExpansionLoc(r->getLocation()) != expansion ||
        macroBodyOf(c, r->getLocation()) != macro)
      return false; // read by the code given, or by another macro's body
  return true;
}

bool isDispatchedConstant(DetectContext &c, const VarDecl *var) {
  if (!var->isLocalVarDecl() || !var->getInit() ||
      !var->getType()->isIntegralOrEnumerationType() ||
      !(var->isConstexpr() || var->getType().isConstQualified()))
    return false;
  // Declared by a function-like macro (DISPATCH_*, BOOL_SWITCH) for the
  // code it is given: one per case, each with its own value. A launch
  // macro's own local, read only in its body (`const int num_threads =
  // 256;` in Warp's `wp_launch_device`), is the macro's constant.
  SourceLocation loc = var->getLocation();
  if (loc.isMacroID() && c.SM.isMacroBodyExpansion(loc) &&
      c.SM.getSLocEntry(c.SM.getFileID(loc))
          .getExpansion()
          .isFunctionMacroExpansion() &&
      !readOnlyInItsMacroBody(c, var))
    return true;
  // Written out: `case 8: { constexpr int V = 8; ...}`.
  const CompoundStmt *body = declaringBlock(c, var);
  if (!body)
    return false;
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
    std::string name = calleeName(call);
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
