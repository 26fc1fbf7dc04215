//===- NvrtcGuard.cpp - Host code out of NVRTC's way ----------------------===//
#include "ktune/Run/NvrtcGuard.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/Basic/SourceManager.h"

#include <algorithm>
#include <mutex>

namespace ktune::run {

namespace {

using namespace clang;

class HostFunctions {
public:
  HostFunctions(ASTContext &ctx) : Ctx(ctx), SM(ctx.getSourceManager()) {}

  std::vector<ByteRange> collect() {
    walk(Ctx.getTranslationUnitDecl());
    return Ranges;
  }

private:
  ASTContext &Ctx;
  SourceManager &SM;
  std::vector<ByteRange> Ranges;

  std::optional<unsigned> offsetOf(SourceLocation loc) {
    if (loc.isInvalid())
      return std::nullopt;
    loc = SM.getExpansionLoc(loc);
    if (!SM.isInMainFile(loc))
      return std::nullopt;
    return SM.getFileOffset(loc);
  }

  static bool hostOnly(const FunctionDecl *f) {
    return !f->isImplicit() && !f->hasAttr<CUDADeviceAttr>() &&
           !f->hasAttr<CUDAGlobalAttr>() && !f->isConstexpr() &&
           !llvm::isa<CXXMethodDecl>(f);
  }

  void add(const Decl *outer, const FunctionDecl *f) {
    auto begin = offsetOf(outer->getBeginLoc());
    auto end = offsetOf(f->getEndLoc());
    if (!begin || !end || *end < *begin)
      return;
    unsigned stop = *end + 1;
    if (!f->doesThisDeclarationHaveABody()) {
      // A declaration: up to its ';'.
      llvm::StringRef buffer = SM.getBufferData(SM.getMainFileID());
      size_t semi = buffer.find(';', *end);
      if (semi == llvm::StringRef::npos)
        return;
      stop = static_cast<unsigned>(semi) + 1;
    }
    Ranges.push_back({*begin, stop});
  }

  void walk(const DeclContext *dc) {
    for (const Decl *d : dc->decls()) {
      if (const auto *ns = llvm::dyn_cast<NamespaceDecl>(d)) {
        walk(ns);
      } else if (const auto *ls = llvm::dyn_cast<LinkageSpecDecl>(d)) {
        walk(ls);
      } else if (const auto *t = llvm::dyn_cast<FunctionTemplateDecl>(d)) {
        if (const FunctionDecl *f = t->getTemplatedDecl(); f && hostOnly(f))
          add(t, f);
      } else if (const auto *f = llvm::dyn_cast<FunctionDecl>(d)) {
        if (hostOnly(f))
          add(f, f);
      }
    }
  }
};

} // namespace

llvm::Expected<std::vector<ByteRange>>
hostOnlyRanges(const refactor::CompileCommand &command,
               const refactor::ParserOptions &options) {
  std::vector<ByteRange> ranges;
  std::mutex lock;
  auto err = refactor::parseBothSides(
      command, options, [&](clang::ASTContext &ctx, refactor::CudaSide side) {
        if (side != refactor::CudaSide::Host)
          return;
        auto found = HostFunctions(ctx).collect();
        std::lock_guard<std::mutex> hold(lock);
        ranges = std::move(found);
      });
  if (err)
    return err;
  std::sort(ranges.begin(), ranges.end());
  std::vector<ByteRange> outer;
  for (const auto &r : ranges)
    if (outer.empty() || r.first >= outer.back().second)
      outer.push_back(r);
    else
      outer.back().second = std::max(outer.back().second, r.second);
  return outer;
}

std::string guardHostCode(const std::string &text,
                          const std::vector<ByteRange> &ranges) {
  // Whole lines, merged where they touch.
  std::vector<ByteRange> lines;
  for (auto [begin, end] : ranges) {
    if (begin >= text.size() || end <= begin)
      continue;
    end = std::min<unsigned>(end, static_cast<unsigned>(text.size()));
    unsigned b = begin;
    while (b > 0 && text[b - 1] != '\n')
      --b;
    size_t nl = text.find('\n', end - 1);
    unsigned e = nl == std::string::npos ? static_cast<unsigned>(text.size())
                                         : static_cast<unsigned>(nl) + 1;
    if (!lines.empty() && b <= lines.back().second)
      lines.back().second = std::max(lines.back().second, e);
    else
      lines.push_back({b, e});
  }
  std::string out;
  size_t at = 0;
  for (auto [b, e] : lines) {
    out.append(text, at, b - at);
    out += "#ifndef __CUDACC_RTC__ // host code: NVRTC (the tuner) skips it\n";
    out.append(text, b, e - b);
    if (out.back() != '\n')
      out += '\n';
    out += "#endif // __CUDACC_RTC__\n";
    at = e;
  }
  out.append(text, at, std::string::npos);
  return out;
}

} // namespace ktune::run
