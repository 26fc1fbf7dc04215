//===- ParseRecovery.cpp - Carrying on past errors in unrelated code ------===//
//
// Errors are recorded as they are reported, then judged against the
// recovered AST: only errors in host functions that are no kernel, no
// kernel's callee and no launcher let the analysis carry on, and errors on
// the host side in a device function's body, which nvcc's host pass never
// compiles; file-scope redeclarations of the CUDA builtin variables with
// nvcc's types, which Clang declares with its own, and of Clang's other
// builtins (`__rdtsc`); anywhere, a `template` keyword nvcc does not
// require, which Clang supplies, default arguments added to a member
// defined out of its class template, and a device specialization of a host
// and device template, which nvcc takes.
//
//===----------------------------------------------------------------------===//

#include "ParseInternal.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/DiagnosticParse.h"
#include "clang/Basic/DiagnosticSema.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/SmallString.h"

#include <map>
#include <set>

namespace ktune::refactor {

using namespace clang;

void ErrorRecorder::BeginSourceFile(const LangOptions &lo,
                                    const Preprocessor *pp) {
  Next.BeginSourceFile(lo, pp);
}

void ErrorRecorder::EndSourceFile() { Next.EndSourceFile(); }

void ErrorRecorder::finish() { Next.finish(); }

void ErrorRecorder::clear() {
  DiagnosticConsumer::clear();
  Next.clear();
  Errors.clear();
}

void ErrorRecorder::HandleDiagnostic(DiagnosticsEngine::Level level,
                                     const Diagnostic &info) {
  DiagnosticConsumer::HandleDiagnostic(level, info);
  Next.HandleDiagnostic(level, info);
  if (level < DiagnosticsEngine::Error)
    return;
  ReportedError e;
  e.loc = info.getLocation();
  e.fatal = level == DiagnosticsEngine::Fatal;
  // nvcc accepts a dependent member template named without `template`
  // (cuCollections' `ref_type<...>`); Clang supplies the keyword and
  // goes on.
  // nvcc also takes default arguments added where a member of a class
  // template is defined out of its class (SlabHash's computeLoadFactor);
  // Clang reports them and goes on.
  // An explicit specialization whose target differs from its template's
  // (`template <> __device__ float f(int)` of a `__host__ __device__`
  // template, under #ifdef __CUDA_ARCH__, cudaKDTree's as_float_rz): nvcc
  // takes it as the device's specialization, Clang finds no template.
  e.readAsNvcc =
      info.getID() == diag::err_missing_dependent_template_keyword ||
      info.getID() == diag::err_param_default_argument_member_template_redecl ||
      info.getID() == diag::err_function_template_spec_no_match;
  llvm::SmallString<256> message;
  info.FormatDiagnostic(message);
  if (e.loc.isValid() && info.hasSourceManager()) {
    PresumedLoc p = info.getSourceManager().getPresumedLoc(
        info.getSourceManager().getExpansionLoc(e.loc));
    if (p.isValid())
      e.text = std::string(p.getFilename()) + ":" +
               std::to_string(p.getLine()) + ":" +
               std::to_string(p.getColumn()) + ": ";
  }
  e.text += "error: " + message.str().str();
  Errors.push_back(std::move(e));
}

namespace {

struct FunctionInfo {
  const FunctionDecl *fn = nullptr;
  FileID file;
  unsigned begin = 0, end = 0; // the body's offsets in `file`
  bool kernel = false;
  bool launches = false;
  std::set<const FunctionDecl *> callees;
};

/// What a function body calls, names and launches.
class BodyScanner : public RecursiveASTVisitor<BodyScanner> {
public:
  explicit BodyScanner(FunctionInfo &info) : Info(info) {}
  bool shouldVisitTemplateInstantiations() const { return true; }

  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *) {
    Info.launches = true;
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *ref) {
    add(ref->getDecl());
    return true;
  }
  bool VisitUnresolvedLookupExpr(UnresolvedLookupExpr *e) {
    for (const NamedDecl *d : e->decls())
      add(d);
    return true;
  }
  bool VisitCXXConstructExpr(CXXConstructExpr *e) {
    add(e->getConstructor());
    return true;
  }
  bool VisitMemberExpr(MemberExpr *e) {
    add(e->getMemberDecl());
    return true;
  }

private:
  void add(const NamedDecl *d) {
    if (!d)
      return;
    d = d->getUnderlyingDecl();
    const FunctionDecl *fn = d->getAsFunction();
    if (!fn)
      return;
    if (fn->hasAttr<CUDAGlobalAttr>())
      Info.launches = true; // named: cudaLaunchKernel((void *)k, ...)
    Info.callees.insert(fn->getCanonicalDecl());
  }

  FunctionInfo &Info;
};

/// Every function definition with a body, and what it does.
class FunctionCollector : public RecursiveASTVisitor<FunctionCollector> {
public:
  explicit FunctionCollector(const SourceManager &sm) : SM(sm) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool shouldVisitImplicitCode() const { return true; }

  bool VisitFunctionDecl(FunctionDecl *fd) {
    if (!fd->doesThisDeclarationHaveABody() || !fd->getBody())
      return true;
    SourceRange r = fd->getBody()->getSourceRange();
    // A constructor's member initializers (written or implicit) are
    // reported at its name: part of its body here.
    if (llvm::isa<CXXConstructorDecl>(fd))
      r.setBegin(fd->getLocation());
    SourceLocation b = SM.getExpansionLoc(r.getBegin());
    SourceLocation e = SM.getExpansionRange(r.getEnd()).getEnd();
    auto [fileB, offB] = SM.getDecomposedLoc(b);
    auto [fileE, offE] = SM.getDecomposedLoc(e);
    if (fileB.isInvalid() || fileB != fileE)
      return true;
    FunctionInfo info;
    info.fn = fd;
    info.file = fileB;
    info.begin = offB;
    info.end = offE;
    info.kernel = fd->hasAttr<CUDAGlobalAttr>();
    BodyScanner(info).TraverseStmt(fd->getBody());
    Functions.push_back(std::move(info));
    return true;
  }

  std::vector<FunctionInfo> Functions;

private:
  const SourceManager &SM;
};

/// A kernel, or a `__device__` function that is not also `__host__`.
bool runsOnDeviceOnly(const FunctionDecl *fn) {
  return fn->hasAttr<CUDAGlobalAttr>() ||
         (fn->hasAttr<CUDADeviceAttr>() && !fn->hasAttr<CUDAHostAttr>());
}

/// A function with neither `__device__` nor `__global__`: host code alone.
bool runsOnHostOnly(const FunctionDecl *fn) {
  return !fn->hasAttr<CUDAGlobalAttr>() && !fn->hasAttr<CUDADeviceAttr>();
}

std::string nameOf(const FunctionDecl *fn) {
  return fn->getQualifiedNameAsString();
}

/// Where a file-scope declaration of a CUDA builtin variable clashes with
/// Clang's: host code written for nvcc may declare `extern const dim3
/// blockDim;` (nvcc's own type), Clang's builtin has a type of its own.
/// Every use still names Clang's declaration, so the clash changes nothing
/// the analysis reads. Host functions redeclaring Clang's builtins too.
std::set<SourceLocation> builtinRedeclarations(ASTContext &ctx) {
  std::set<SourceLocation> at;
  const SourceManager &SM = ctx.getSourceManager();
  auto visit = [&](const DeclContext *dc, auto &self) -> void {
    for (const Decl *d : dc->decls()) {
      if (const auto *spec = dyn_cast<LinkageSpecDecl>(d)) {
        self(spec, self);
        continue;
      }
      // A host function of a name that is a builtin of Clang's and not of
      // GCC's (`static uint64_t __rdtsc()`, which GCC declares only in
      // <x86intrin.h>): nvcc's host compiler reads it as a new function.
      if (const auto *fn = dyn_cast<FunctionDecl>(d)) {
        const IdentifierInfo *id = fn->getIdentifier();
        if (id && id->getBuiltinID() != 0 && !fn->isImplicit())
          at.insert(SM.getExpansionLoc(fn->getLocation()));
        continue;
      }
      const auto *var = dyn_cast<VarDecl>(d);
      if (!var || !var->isInvalidDecl() || !var->getIdentifier())
        continue;
      llvm::StringRef name = var->getName();
      if (name == "threadIdx" || name == "blockIdx" || name == "blockDim" ||
          name == "gridDim" || name == "warpSize")
        at.insert(SM.getExpansionLoc(var->getLocation()));
    }
  };
  visit(ctx.getTranslationUnitDecl(), visit);
  return at;
}

} // namespace

RecoveryVerdict judgeErrors(ASTContext &ctx,
                            const std::vector<ReportedError> &errors) {
  RecoveryVerdict verdict;
  const SourceManager &SM = ctx.getSourceManager();
  for (const ReportedError &e : errors)
    if (e.fatal || e.loc.isInvalid()) {
      verdict.blocking = e.text;
      return verdict;
    }
  FunctionCollector collector(SM);
  collector.TraverseDecl(ctx.getTranslationUnitDecl());
  auto &functions = collector.Functions;

  // Why a function matters: a kernel, a launcher, or called from a kernel
  // (transitively).
  std::map<const FunctionDecl *, std::string> why;
  std::map<const FunctionDecl *, std::vector<const FunctionInfo *>> byDecl;
  for (const FunctionInfo &f : functions)
    byDecl[f.fn->getCanonicalDecl()].push_back(&f);
  std::vector<const FunctionDecl *> work;
  for (const FunctionInfo &f : functions) {
    const FunctionDecl *key = f.fn->getCanonicalDecl();
    if (f.kernel && !why.count(key)) {
      why[key] = "in kernel '" + nameOf(f.fn) + "'";
      work.push_back(key);
    } else if (f.launches && !why.count(key)) {
      why[key] = "in '" + nameOf(f.fn) + "', which launches a kernel";
    }
  }
  while (!work.empty()) {
    const FunctionDecl *k = work.back();
    work.pop_back();
    for (const FunctionInfo *f : byDecl[k])
      for (const FunctionDecl *callee : f->callees) {
        // Instantiations' bodies are listed under their own declaration;
        // a template's pattern under the template's.
        const FunctionDecl *both[] = {
            callee, callee->getTemplateInstantiationPattern()};
        for (const FunctionDecl *c : both) {
          if (!c)
            continue;
          c = c->getCanonicalDecl();
          if (why.count(c))
            continue;
          why[c] = "in '" + nameOf(c) + "', which a kernel calls";
          work.push_back(c);
        }
      }
  }

  // A launch Clang could not parse leaves no trace in the AST but the
  // kernel's name in the text.
  std::set<std::string> kernelNames;
  for (const FunctionInfo &f : functions)
    if (f.kernel && f.fn->getDeclName().isIdentifier())
      kernelNames.insert(f.fn->getName().str());
  auto namedKernel = [&](const FunctionInfo &f) -> std::string {
    llvm::StringRef body =
        SM.getBufferData(f.file).substr(f.begin, f.end - f.begin);
    for (const std::string &k : kernelNames)
      for (size_t at = body.find(k); at != llvm::StringRef::npos;
           at = body.find(k, at + 1)) {
        auto isWord = [](char c) { return isalnum(c) || c == '_'; };
        bool before = at > 0 && isWord(body[at - 1]);
        bool after = at + k.size() < body.size() && isWord(body[at + k.size()]);
        if (!before && !after)
          return k;
      }
    return {};
  };

  std::set<SourceLocation> builtinClashes = builtinRedeclarations(ctx);
  const bool hostSide = !ctx.getLangOpts().CUDAIsDevice;
  for (const ReportedError &e : errors) {
    if (e.readAsNvcc || builtinClashes.count(SM.getExpansionLoc(e.loc)))
      continue;
    auto [file, offset] = SM.getDecomposedLoc(SM.getExpansionLoc(e.loc));
    bool enclosed = false;
    for (const FunctionInfo &f : functions) {
      if (f.file != file || offset < f.begin || offset > f.end)
        continue;
      enclosed = true;
      // nvcc's host pass never compiles a device function's body; its
      // errors on the host side (a call to a function that is `__host__
      // __device__` only where __CUDA_ARCH__ is defined) are the device
      // side's to judge.
      if (hostSide && runsOnDeviceOnly(f.fn))
        continue;
      // And the device pass never compiles a host function's body: its
      // errors on the device side (InfiniTAM's vectors, whose constructors
      // are `__device__` only where __CUDA_ARCH__ is defined, built in a
      // launcher) are the host side's to judge.
      if (!hostSide && runsOnHostOnly(f.fn))
        continue;
      auto it = why.find(f.fn->getCanonicalDecl());
      if (it != why.end()) {
        verdict.blocking = e.text + " (" + it->second + ")";
        return verdict;
      }
      if (std::string k = namedKernel(f); !k.empty()) {
        verdict.blocking = e.text + " (in '" + nameOf(f.fn) +
                           "', which names kernel '" + k + "')";
        return verdict;
      }
    }
    if (!enclosed) {
      verdict.blocking = e.text + " (outside any function body)";
      return verdict;
    }
  }
  verdict.recoverable = true;
  return verdict;
}

} // namespace ktune::refactor
