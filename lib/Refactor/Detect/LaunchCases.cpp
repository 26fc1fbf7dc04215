//===- LaunchCases.cpp - The case of a configuration table a launch is in -===//
//
// Configuration tables choose a kernel's constants per case on the host:
// `if (seqlen <= 128) k<32, 4><<<...>>>(); else if (...) k<64, 16>...`, or
// `switch (log2_elements) { case 7: ... }`. A launch's case is the innermost
// branch of an if/else-if chain or switch holding it; its condition is the
// conjunction of every enclosing branch's, written over the host function's
// parameters so that the tuner can tell which shapes reach it.
//
//===----------------------------------------------------------------------===//

#include "DetectInternal.h"

#include "clang/AST/ParentMapContext.h"

namespace ktune::refactor {

using namespace clang;

namespace {

/// The condition as an expression of the host's parameters and numbers, or
/// nothing when it names anything else (a local, a call, a member).
std::optional<std::string> spellCondition(DetectContext &c, const Expr *e,
                                          const FunctionDecl *host) {
  e = e->IgnoreParenImpCasts();
  if (!e->isValueDependent() && e->getType()->isIntegralOrEnumerationType())
    if (auto v = e->getIntegerConstantExpr(c.Ctx))
      return std::to_string(v->getExtValue());
  if (const auto *ref = llvm::dyn_cast<DeclRefExpr>(e)) {
    const auto *parm = llvm::dyn_cast<ParmVarDecl>(ref->getDecl());
    if (parm && parm->getDeclContext() == host &&
        parm->getType()->isIntegralOrEnumerationType())
      return parm->getNameAsString();
    return std::nullopt;
  }
  if (const auto *u = llvm::dyn_cast<UnaryOperator>(e)) {
    if (u->getOpcode() != UO_LNot && u->getOpcode() != UO_Minus)
      return std::nullopt;
    auto sub = spellCondition(c, u->getSubExpr(), host);
    if (!sub)
      return std::nullopt;
    return std::string(UnaryOperator::getOpcodeStr(u->getOpcode())) + "(" +
           *sub + ")";
  }
  if (const auto *b = llvm::dyn_cast<BinaryOperator>(e)) {
    if (!b->isComparisonOp() && !b->isLogicalOp() && !b->isAdditiveOp() &&
        !b->isMultiplicativeOp())
      return std::nullopt;
    auto l = spellCondition(c, b->getLHS(), host);
    auto r = spellCondition(c, b->getRHS(), host);
    if (!l || !r)
      return std::nullopt;
    return "(" + *l + ") " + b->getOpcodeStr().str() + " (" + *r + ")";
  }
  return std::nullopt;
}

std::string conjunction(const std::vector<std::string> &terms) {
  if (terms.empty())
    return "";
  std::string out;
  for (const auto &t : terms)
    out += (out.empty() ? "" : " && ") + ("(" + t + ")");
  return terms.size() == 1 ? terms.front() : out;
}

/// The numbers `e` names (literals, enumerators, constants) and whether it
/// takes a remainder.
void numbersIn(DetectContext &c, const Stmt *s, CallFacts &cf) {
  if (!s)
    return;
  if (const auto *e = llvm::dyn_cast<Expr>(s);
      e && !e->isValueDependent() &&
      e->getType()->isIntegralOrEnumerationType())
    if (auto v = e->getIntegerConstantExpr(c.Ctx)) {
      cf.caseNumbers.insert(v->getExtValue());
      return;
    }
  if (const auto *b = llvm::dyn_cast<BinaryOperator>(s);
      b && (b->getOpcode() == BO_Rem || b->getOpcode() == BO_RemAssign))
    cf.caseRemainder = true;
  for (const Stmt *child : s->children())
    numbersIn(c, child, cf);
}

/// The labels of the switch case that holds `stmt` (a statement of the
/// switch's body), and whether it is the default; nothing when control can
/// fall into it from the case before.
struct SwitchLabels {
  std::vector<const Expr *> values;
  bool isDefault = false;
};
std::optional<SwitchLabels> labelsOf(const SwitchStmt *sw, const Stmt *stmt) {
  const auto *body = llvm::dyn_cast_or_null<CompoundStmt>(sw->getBody());
  if (!body)
    return std::nullopt;
  std::optional<SwitchLabels> current;
  const Stmt *previous = nullptr;
  for (const Stmt *s : body->body()) {
    if (llvm::isa<SwitchCase>(s)) {
      // Falling in from the case above: its condition is not this case's.
      if (previous && !llvm::isa<BreakStmt, ReturnStmt>(previous))
        current.reset();
      else
        current = SwitchLabels{};
      const Stmt *inner = s;
      while (const auto *sc = llvm::dyn_cast<SwitchCase>(inner)) {
        if (current) {
          if (const auto *cs = llvm::dyn_cast<CaseStmt>(sc))
            current->values.push_back(cs->getLHS());
          else
            current->isDefault = true;
        }
        inner = sc->getSubStmt();
      }
      if (s == stmt || inner == stmt)
        return current;
      previous = inner;
      continue;
    }
    if (s == stmt)
      return current;
    // `CASE(...);` with the macro ending in `break;`: the `;` does nothing.
    if (!llvm::isa<NullStmt>(s))
      previous = s;
  }
  return std::nullopt;
}

/// Every label of the switch: what `default` is reached without.
std::vector<const Expr *> allLabels(const SwitchStmt *sw) {
  std::vector<const Expr *> out;
  for (const SwitchCase *sc = sw->getSwitchCaseList(); sc;
       sc = sc->getNextSwitchCase())
    if (const auto *cs = llvm::dyn_cast<CaseStmt>(sc))
      out.push_back(cs->getLHS());
  return out;
}

} // namespace

void launchCase(DetectContext &c, const Stmt *launch, const FunctionDecl *host,
                CallFacts &cf) {
  if (!launch || !host || !host->getBody())
    return;
  std::vector<std::string> terms; // innermost first
  bool known = true;
  bool innermost = true;
  auto addTerm = [&](const Expr *cond, bool negate) {
    // The numbers that choose this case: its own condition's and those of
    // the branches it is inside; an earlier case's, which the chain has
    // ruled out (`else` of `k <= 64`), choose nothing here.
    if (!negate || innermost)
      numbersIn(c, cond, cf);
    innermost = false;
    auto s = cond ? spellCondition(c, cond, host) : std::nullopt;
    if (!s)
      known = false;
    else
      terms.push_back(negate ? "!(" + *s + ")" : *s);
  };
  const Stmt *child = launch;
  for (int depth = 0; depth < 256; ++depth) {
    auto parents = c.Ctx.getParents(*child);
    if (parents.empty())
      break;
    const Stmt *parent = parents[0].get<Stmt>();
    if (!parent)
      break; // a declaration: the host's body is done
    if (const auto *ifs = llvm::dyn_cast<IfStmt>(parent)) {
      bool inThen = ifs->getThen() == child, inElse = ifs->getElse() == child;
      if ((inThen || inElse) && !ifs->isConsteval() && !ifs->getInit() &&
          !ifs->getConditionVariable()) {
        addTerm(ifs->getCond(), inElse);
        if (!cf.caseTable) {
          // The table is the chain's first `if`; the case, the branch.
          const IfStmt *root = ifs;
          int index = inThen ? 0 : 1;
          for (;;) {
            auto up = c.Ctx.getParents(*root);
            const auto *outer = up.empty() ? nullptr : up[0].get<IfStmt>();
            if (!outer || outer->getElse() != root)
              break;
            root = outer;
            ++index;
          }
          cf.caseTable = positionOf(c, root->getBeginLoc());
          cf.caseTableLine = c.SM.getSpellingLineNumber(root->getBeginLoc());
          cf.caseIndex = index;
        }
      } else if (inThen || inElse) {
        known = false;
      }
    } else if (llvm::isa<CompoundStmt>(parent)) {
      auto up = c.Ctx.getParents(*parent);
      const auto *sw = up.empty() ? nullptr : up[0].get<SwitchStmt>();
      if (sw && sw->getBody() == parent) {
        innermost = false;
        auto labels = labelsOf(sw, child);
        auto subject = spellCondition(c, sw->getCond(), host);
        // The numbers a case names, whether or not its subject can be
        // spelled (`switch (n_threads)` of a local: `case 512: k<512>`).
        numbersIn(c, sw->getCond(), cf);
        if (labels) {
          for (const Expr *v : labels->values)
            numbersIn(c, v, cf);
          if (labels->isDefault)
            for (const Expr *v : allLabels(sw))
              numbersIn(c, v, cf);
        }
        if (!labels || !subject) {
          known = false;
        } else {
          std::vector<std::string> alternatives;
          for (const Expr *v : labels->values)
            if (auto s = spellCondition(c, v, host))
              alternatives.push_back("(" + *subject + ") == (" + *s + ")");
            else
              known = false;
          if (labels->isDefault) {
            std::vector<std::string> others;
            for (const Expr *v : allLabels(sw))
              if (auto s = spellCondition(c, v, host))
                others.push_back("(" + *subject + ") != (" + *s + ")");
              else
                known = false;
            alternatives.push_back(others.empty() ? "1" : conjunction(others));
          }
          std::string any;
          for (const auto &a : alternatives)
            any += (any.empty() ? "" : " || ") + ("(" + a + ")");
          terms.push_back(alternatives.size() == 1 ? alternatives.front()
                                                   : any);
        }
        if (!cf.caseTable) {
          int place = 0; // the case's place from the top
          const auto *body = llvm::cast<CompoundStmt>(parent);
          for (const Stmt *s : body->body()) {
            if (llvm::isa<SwitchCase>(s))
              ++place;
            if (s == child)
              break;
          }
          cf.caseTable = positionOf(c, sw->getBeginLoc());
          cf.caseTableLine = c.SM.getSpellingLineNumber(sw->getBeginLoc());
          cf.caseIndex = place - 1;
        }
      }
    }
    if (parent == host->getBody())
      break;
    child = parent;
  }
  if (!cf.caseTable)
    return;
  std::reverse(terms.begin(), terms.end());
  cf.caseCondition = known ? conjunction(terms) : "unknown";
}

} // namespace ktune::refactor
