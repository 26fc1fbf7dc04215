//===- HostCode.cpp - The main file's host-only functions -----------------===//
//
// NVRTC compiles templates but refuses host functions. `ktune run` has the
// rewrite wrap each host-only function of the main file (neither __device__
// nor __global__, not constexpr, not a member) in `#ifndef __CUDACC_RTC__`
// ... `#endif`; the ranges are read here, on the host side's AST.
//
//===----------------------------------------------------------------------===//

#include "DetectInternal.h"

namespace ktune::refactor {

using namespace clang;

namespace {

bool hostOnly(const FunctionDecl *f) {
  return !f->isImplicit() && !f->hasAttr<CUDADeviceAttr>() &&
         !f->hasAttr<CUDAGlobalAttr>() && !f->isConstexpr() &&
         !llvm::isa<CXXMethodDecl>(f);
}

class HostFunctions {
public:
  explicit HostFunctions(DetectContext &c) : C(c) {}

  void walk(const DeclContext *dc) {
    for (const Decl *d : dc->decls()) {
      if (const auto *ns = llvm::dyn_cast<NamespaceDecl>(d))
        walk(ns);
      else if (const auto *ls = llvm::dyn_cast<LinkageSpecDecl>(d))
        walk(ls);
      else if (const auto *t = llvm::dyn_cast<FunctionTemplateDecl>(d)) {
        if (const FunctionDecl *f = t->getTemplatedDecl(); f && hostOnly(f))
          add(t, f);
      } else if (const auto *f = llvm::dyn_cast<FunctionDecl>(d)) {
        if (hostOnly(f))
          add(f, f);
      }
    }
  }

private:
  std::optional<Position> positionInMain(SourceLocation loc) {
    if (loc.isInvalid())
      return std::nullopt;
    loc = C.SM.getExpansionLoc(loc);
    if (!C.SM.isInMainFile(loc))
      return std::nullopt;
    return makePosition(0, C.SM.getFileOffset(loc));
  }

  /// From the declaration's first token (`template` included) to its
  /// closing brace, or to the ';' of a declaration.
  void add(const Decl *outer, const FunctionDecl *f) {
    auto begin = positionInMain(outer->getBeginLoc());
    auto end = positionInMain(f->getEndLoc());
    if (!begin || !end || *end < *begin)
      return;
    Position stop = *end + 1;
    if (!f->doesThisDeclarationHaveABody()) {
      llvm::StringRef buffer = fileText(C, 0);
      size_t semi = buffer.find(';', *end);
      if (semi == llvm::StringRef::npos)
        return;
      stop = static_cast<unsigned>(semi) + 1;
    }
    if (stop < MaxFileBytes)
      C.Sink.Facts.hostOnlyRanges.emplace_back(*begin, stop);
  }

  DetectContext &C;
};

} // namespace

void collectHostCode(DetectContext &c) {
  if (c.LO.CUDAIsDevice)
    return;
  HostFunctions(c).walk(c.Ctx.getTranslationUnitDecl());
}

} // namespace ktune::refactor
