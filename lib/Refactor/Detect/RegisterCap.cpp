//===- RegisterCap.cpp - Can a kernel take a register cap? ----------------===//
//
// `__launch_bounds__(T, M)` asks ptxas for M resident blocks of T threads
// per SM, so at most 65536 / (T * M) registers per thread: the one register
// cap that reaches the user's build (a -maxrregcount would cap every kernel
// of the file). A kernel takes a minimum M (a template parameter, 0 by
// default) where its bounds can be written:
// - `__launch_bounds__(N)` spelled in the kernel's declaration: `, M` goes
//   before its ')', and `__launch_bounds__(N, 0)` is `__launch_bounds__(N)`;
// - no bounds: `__launch_bounds__(M > 0 ? 1024 : 0, M)` goes before the
//   kernel's name: bounds of 0 and 0 emit no directive (the original PTX),
//   and 1024 is a bound every launch keeps, so M blocks of 1024 threads cap
//   the registers at 64 / M.
// Bounds spelled through a project macro, bounds that already name a
// minimum (that constant is the knob) and kernels declared in a macro are
// left as they are.
//
//===----------------------------------------------------------------------===//

#include "DetectInternal.h"

#include "clang/Lex/Lexer.h"

namespace ktune::refactor {

using namespace clang;

namespace {

/// The ')' closing the '(' at `open` in `text`, or npos.
size_t closingParen(llvm::StringRef text, size_t open) {
  int depth = 0;
  for (size_t i = open; i < text.size(); ++i) {
    if (text[i] == '(')
      ++depth;
    else if (text[i] == ')' && --depth == 0)
      return i;
  }
  return llvm::StringRef::npos;
}

} // namespace

void analyseRegisterCap(DetectContext &c, const FunctionDecl *def,
                        FunctionFacts &facts) {
  RegisterCapFacts &out = facts.registerCap;
  if (out.analysed)
    return;
  const auto *lb = def->getAttr<CUDALaunchBoundsAttr>();
  if (lb && lb->getMinBlocks())
    return; // its own minimum is the candidate
  out.analysed = true;
  auto refuse = [&](SourceLocation at, const std::string &why) {
    out.refusal = noteAt(c, at, why);
  };
  if (!lb) {
    SourceLocation name = def->getQualifierLoc()
                              ? def->getQualifierLoc().getBeginLoc()
                              : def->getLocation();
    auto at = positionOf(c, name);
    if (name.isMacroID() || !at)
      return refuse(def->getLocation(),
                    "the kernel is declared in a macro: its bounds cannot "
                    "be written");
    out.at = *at;
    out.maxThreads = 1024;
  } else {
    // `__launch_bounds__` itself (CUDA's macro) written in the file, not
    // a project macro that expands to it.
    SourceLocation use = c.SM.getExpansionLoc(lb->getLocation());
    auto at = positionOf(c, use);
    llvm::StringRef text = at ? fileText(c, *at) : llvm::StringRef();
    size_t from = at ? localPart(*at) : 0;
    llvm::StringRef spelled = text.substr(from);
    if (!at || !spelled.starts_with("__launch_bounds__"))
      return refuse(lb->getLocation(),
                    "its __launch_bounds__ is spelled through a macro: the "
                    "minimum cannot be added there");
    size_t open = text.find('(', from);
    size_t close =
        open == llvm::StringRef::npos ? open : closingParen(text, open);
    if (close == llvm::StringRef::npos ||
        !text.substr(from + 17, open - from - 17).trim().empty())
      return refuse(lb->getLocation(),
                    "its __launch_bounds__ cannot be read: the minimum "
                    "cannot be added");
    out.at = makePosition(filePart(*at), static_cast<unsigned>(close));
    out.extendsBounds = true;
    const Expr *t = lb->getMaxThreads();
    if (!t->isValueDependent())
      if (auto v = t->getIntegerConstantExpr(c.Ctx))
        out.maxThreads = v->getExtValue();
  }
  std::tie(out.line, out.col) = lineCol(c, out.at);
}

} // namespace ktune::refactor
