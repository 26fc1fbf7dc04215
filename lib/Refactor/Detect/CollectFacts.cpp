//===- CollectFacts.cpp - Reading kernels and constants off the AST -------===//
//
// The traversal starts from the main file's declarations; kernels it
// launches and the helpers they call are followed into the project headers
// the filter lets through. Template instantiations are never visited (the
// pattern is the source). Every site is keyed by its position (file index
// and byte offset), so the host and device sides merge. The steps are
// declared in DetectInternal.h.
//
//===----------------------------------------------------------------------===//

#include "DetectInternal.h"

#include "clang/Lex/Lexer.h"
#include "clang/Lex/Token.h"

#include <algorithm>

namespace ktune::refactor {

using namespace clang;

DetectContext::DetectContext(ASTContext &ctx, std::string file,
                             SourceFacts &out, const HeaderFilter *headers)
    : Ctx(ctx), SM(ctx.getSourceManager()), LO(ctx.getLangOpts()),
      Main(SM.getMainFileID()), File(std::move(file)), Headers(headers),
      Sink(out) {
  fileIndex(*this, Main); // the main file is file 0
}

void FactSink::finish() {
  for (auto &[key, o] : Occs)
    Facts.occurrences.push_back(o);
  std::sort(Facts.occurrences.begin(), Facts.occurrences.end(),
            [](const Occurrence &a, const Occurrence &b) {
              return std::tie(a.offset, a.kernel, a.role) <
                     std::tie(b.offset, b.kernel, b.role);
            });
}

bool inRewritableFile(DetectContext &c, SourceLocation loc) {
  return loc.isValid() &&
         fileIndex(c, c.SM.getFileID(c.SM.getExpansionLoc(loc))).has_value();
}

std::optional<std::pair<Position, unsigned>> fileRange(DetectContext &c,
                                                       SourceRange range) {
  CharSourceRange r = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(range), c.SM, c.LO);
  if (r.isInvalid())
    return std::nullopt;
  auto [fid, begin] = c.SM.getDecomposedLoc(r.getBegin());
  auto [fid2, end] = c.SM.getDecomposedLoc(r.getEnd());
  if (fid != fid2 || end < begin || end >= MaxFileBytes)
    return std::nullopt;
  auto index = fileIndex(c, fid);
  if (!index)
    return std::nullopt;
  return std::pair{makePosition(*index, begin), end - begin};
}

std::optional<Position> positionOf(DetectContext &c, SourceLocation loc) {
  if (loc.isInvalid())
    return std::nullopt;
  loc = c.SM.getFileLoc(loc);
  auto [fid, off] = c.SM.getDecomposedLoc(loc);
  auto index = fileIndex(c, fid);
  if (!index || off >= MaxFileBytes)
    return std::nullopt;
  return makePosition(*index, off);
}

std::pair<unsigned, unsigned> lineCol(DetectContext &c, Position position) {
  unsigned index = filePart(position);
  if (index >= c.FileIds.size())
    return {0, 0};
  SourceLocation loc =
      c.SM.getComposedLoc(c.FileIds[index], localPart(position));
  return {c.SM.getSpellingLineNumber(loc), c.SM.getSpellingColumnNumber(loc)};
}

llvm::StringRef fileText(DetectContext &c, Position position) {
  unsigned index = filePart(position);
  return index < c.Sink.Facts.files.size()
             ? llvm::StringRef(c.Sink.Facts.files[index].text)
             : llvm::StringRef();
}

std::string text(DetectContext &c, Position position, unsigned length) {
  return fileText(c, position).substr(localPart(position), length).str();
}

std::string textOf(DetectContext &c, SourceRange range) {
  if (auto r = fileRange(c, range))
    return text(c, r->first, r->second);
  return {};
}

std::string noteAt(DetectContext &c, SourceLocation loc,
                   const std::string &message) {
  if (auto off = positionOf(c, loc)) {
    auto [line, col] = lineCol(c, *off);
    return c.Sink.Facts.pathOf(filePart(*off)) + ":" + std::to_string(line) +
           ":" + std::to_string(col) + ": " + message;
  }
  // Outside the files read (a system header): where Clang says it is.
  SourceLocation at = c.SM.getExpansionLoc(loc);
  if (at.isInvalid())
    return message;
  return c.SM.getFilename(at).str() + ":" +
         std::to_string(c.SM.getExpansionLineNumber(at)) + ":" +
         std::to_string(c.SM.getExpansionColumnNumber(at)) + ": " + message;
}

namespace {

/// The launches in one function (lambdas included), then the other places
/// it names a kernel (`auto kernel = K<...>` used by cudaFuncSetAttribute).
class LaunchFinder : public RecursiveASTVisitor<LaunchFinder> {
public:
  LaunchFinder(DetectContext &c, const FunctionDecl *host) : C(c), Host(host) {}
  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *call) {
    auto view = chevronLaunch(call);
    if (!view)
      return true;
    if (view->named.kernel) {
      Named.insert(view->named.ref);
      scanLaunch(C, *view, Host);
      return true;
    }
    // A kernel picked from a table: a launch of each entry, with the
    // launch's geometry (one per spelling: the entries a macro writes are
    // one).
    auto table = kernelTableEntries(C, view->named.ref, Host);
    for (const Expr *entry : table) {
      LaunchView one = *view;
      one.named.ref = entry;
      one.named.kernel = kernelReference(C, entry, Host).kernel;
      Named.insert(entry);
      scanLaunch(C, one, Host);
    }
    // A kernel a picker function returns (exllama's `*_pick(tuning)`): a
    // launch of each kernel it names, whose template arguments the
    // picker's returns take (its references); the launch's function calls
    // the picker, passing what it takes.
    if (table.empty())
      if (PickedKernels picked = pickedKernels(C, view->named.ref, Host);
          !picked.entries.empty()) {
        for (const Expr *entry : picked.entries) {
          LaunchView one = *view;
          one.named.kernel = kernelReference(C, entry, picked.picker).kernel;
          one.pickedElsewhere = true;
          scanLaunch(C, one, Host);
        }
        recordPickerCall(picked);
      }
    return true;
  }
  void recordPickerCall(const PickedKernels &picked) {
    FunctionFacts &from = functionFacts(C, Host, FunctionRole::Host);
    FunctionFacts &to = functionFacts(C, picked.picker, FunctionRole::Host);
    CallFacts cf;
    cf.caller = from.id;
    cf.callee = to.id;
    describeCallee(C, picked.call,
                   picked.call->getCallee()->IgnoreParenImpCasts(),
                   picked.picker, cf, /*typesAsWritten=*/true);
    for (const CallFacts &seen : C.Sink.Facts.calls)
      if (!seen.namesKernel() && seen.caller == cf.caller &&
          seen.callee == cf.callee && seen.insertOffset == cf.insertOffset)
        return;
    C.Sink.call(std::move(cf));
  }
  bool VisitCallExpr(CallExpr *call) {
    if (llvm::isa<CUDAKernelCallExpr>(call))
      return true;
    auto view = apiLaunch(C, call, Host);
    if (!view)
      view = helperLaunch(C, call, Host);
    if (view) {
      Named.insert(view->named.ref);
      scanLaunch(C, *view, Host);
    }
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *ref) {
    reference(ref);
    return true;
  }
  bool VisitUnresolvedLookupExpr(UnresolvedLookupExpr *ule) {
    reference(ule);
    return true;
  }
  void reference(const Expr *e) {
    if (isKernel(C, Host) || isDeviceHelper(C, Host))
      return;
    KernelName named = kernelReference(C, e, Host);
    if (named.kernel && inRewritableFile(C, named.ref->getBeginLoc()))
      References.emplace_back(named.ref, named.kernel);
  }
  /// After the walk: references that no launch used.
  void scanReferences() {
    for (auto [e, k] : References)
      if (!Named.count(e))
        scanKernelReference(C, e, k, Host);
  }
  DetectContext &C;
  const FunctionDecl *Host;
  std::set<const Expr *> Named;
  std::vector<std::pair<const Expr *, const FunctionDecl *>> References;
};

/// A visitor of the main file's declarations: the declarations of other
/// files (headers) are skipped, the namespaces and extern "C" blocks that
/// may hold main-file declarations are entered.
template <class Derived>
class MainFileVisitor : public RecursiveASTVisitor<Derived> {
public:
  explicit MainFileVisitor(DetectContext &c) : C(c) {}

  bool TraverseDecl(Decl *d) {
    if (!d)
      return true;
    if (!llvm::isa<TranslationUnitDecl>(d) &&
        !C.SM.isInMainFile(C.SM.getExpansionLoc(d->getLocation())) &&
        !llvm::isa<NamespaceDecl>(d) && !llvm::isa<LinkageSpecDecl>(d))
      return true;
    return RecursiveASTVisitor<Derived>::TraverseDecl(d);
  }

  DetectContext &C;
};

/// Visits the main file's function definitions.
class FunctionFinder : public MainFileVisitor<FunctionFinder> {
public:
  using MainFileVisitor::MainFileVisitor;

  bool VisitFunctionDecl(FunctionDecl *fd) {
    // A member of a main-file class defined in a project header (a header
    // library's `bcht.hpp` declaring `insert`, its `detail/bcht_impl.cuh`
    // defining it) is read like a launcher the main file calls.
    if (llvm::isa<CXXMethodDecl>(fd) && !fd->doesThisDeclarationHaveABody() &&
        !fd->isImplicit() &&
        C.SM.isInMainFile(C.SM.getExpansionLoc(fd->getLocation())))
      if (const FunctionDecl *def = fd->getDefinition(); def && def != fd)
        follow(def);
    if (!fd->doesThisDeclarationHaveABody() || fd->isImplicit() ||
        !C.SM.isInMainFile(C.SM.getExpansionLoc(fd->getLocation())))
      return true;
    if (fd->isTemplateInstantiation())
      return true;
    if (const auto *md = llvm::dyn_cast<CXXMethodDecl>(fd);
        md && md->getParent()->isLambda())
      return true;
    if (isKernel(C, fd)) {
      scanDeviceFunction(C, fd);
    }
    // Launches anywhere (host functions, and device code with dynamic
    // parallelism), lambdas included.
    LaunchFinder launches(C, fd);
    launches.TraverseStmt(fd->getBody());
    launches.scanReferences();
    followHostCalls(fd);
    return true;
  }

  /// Host functions of the project's headers that `fd` calls (directly or
  /// through other such functions) are read like the main file's: a
  /// launcher in a header (FlashInfer's `norm::FusedAddRMSNorm`) is where
  /// the block size of its kernel is chosen. So are those it names without
  /// calling (a benchmark's `run("atomic", device_reduce_atomic, ...)`):
  /// they keep their name as a function forwarding to the template.
  void followHostCalls(const FunctionDecl *fd) {
    struct Calls : RecursiveASTVisitor<Calls> {
      std::vector<const CallExpr *> calls;
      std::set<const Expr *> callees;
      std::vector<const FunctionDecl *> named;
      std::vector<const FunctionDecl *> dependent;
      bool VisitCallExpr(CallExpr *call) {
        if (call->getDirectCallee() && !llvm::isa<CUDAKernelCallExpr>(call))
          calls.push_back(call);
        // A call in a template whose arguments are dependent
        // (`detail::ComputeShap(X, ...)` in GPUTreeShap's entry point):
        // every function (template) of that name is a callee.
        // So is every overload of a member called so (`setActivation(dst,
        // src, n)` in a member of a class template).
        if (const auto *lookup = llvm::dyn_cast<OverloadExpr>(
                call->getCallee()->IgnoreParenImpCasts()))
          for (const NamedDecl *d : lookup->decls()) {
            const NamedDecl *u = d->getUnderlyingDecl();
            if (const auto *t = llvm::dyn_cast<FunctionTemplateDecl>(u))
              dependent.push_back(t->getTemplatedDecl());
            else if (const auto *f = llvm::dyn_cast<FunctionDecl>(u))
              dependent.push_back(f);
          }
        // A member called on an object whose class template has dependent
        // arguments (`nvWavenetInfer<T, R, S, A> infer(...);
        // infer.setInputs(...)`): every member of that name in the template.
        if (const auto *member = llvm::dyn_cast<CXXDependentScopeMemberExpr>(
                call->getCallee()->IgnoreParenImpCasts()))
          if (const CXXRecordDecl *cls = classTemplateOf(member))
            for (const NamedDecl *d : cls->lookup(member->getMember())) {
              const NamedDecl *u = d->getUnderlyingDecl();
              if (const auto *t = llvm::dyn_cast<FunctionTemplateDecl>(u))
                dependent.push_back(t->getTemplatedDecl());
              else if (const auto *f = llvm::dyn_cast<FunctionDecl>(u))
                dependent.push_back(f);
            }
        if (const Expr *callee = call->getCallee())
          callees.insert(callee->IgnoreParenImpCasts());
        return true;
      }
      static const CXXRecordDecl *
      classTemplateOf(const CXXDependentScopeMemberExpr *member) {
        if (member->isImplicitAccess())
          return nullptr;
        QualType base = member->getBaseType();
        if (member->isArrow())
          base = base->getPointeeType();
        if (base.isNull())
          return nullptr;
        if (const auto *spec = base->getAs<TemplateSpecializationType>())
          if (const auto *t = llvm::dyn_cast_or_null<ClassTemplateDecl>(
                  spec->getTemplateName().getAsTemplateDecl()))
            return t->getTemplatedDecl()->getDefinition();
        if (const auto *injected = base->getAs<InjectedClassNameType>())
          return injected->getDecl()->getDefinition();
        return nullptr;
      }
      bool VisitDeclRefExpr(DeclRefExpr *ref) {
        if (!callees.count(ref))
          if (const auto *f = llvm::dyn_cast<FunctionDecl>(ref->getDecl()))
            named.push_back(f);
        return true;
      }
    } calls;
    calls.TraverseStmt(fd->getBody());
    for (const CallExpr *call : calls.calls) {
      const FunctionDecl *f = call->getDirectCallee();
      if (const FunctionDecl *pattern = f->getTemplateInstantiationPattern())
        f = pattern;
      if (follow(f) || launcherTemplateOfTheFile(f, call))
        recordHostCall(fd, f, call);
    }
    for (const FunctionDecl *f : calls.named)
      if (!f->getDescribedFunctionTemplate() && !f->isTemplateInstantiation())
        if (const FunctionDecl *def = f->getDefinition())
          follow(def);
    for (const FunctionDecl *f : calls.dependent)
      if (const FunctionDecl *def = f->getDefinition())
        follow(def);
  }

  /// A host function template of the main file called with explicit
  /// non-type template arguments (`launch<float, 256>(x, n)`): its launches'
  /// geometry may come from the call (LauncherCallers.cpp), and the caller
  /// launches what it launches.
  bool launcherTemplateOfTheFile(const FunctionDecl *f, const CallExpr *call) {
    const auto *ref =
        llvm::dyn_cast<DeclRefExpr>(call->getCallee()->IgnoreParenImpCasts());
    return ref && ref->hasExplicitTemplateArgs() &&
           std::any_of(ref->template_arguments().begin(),
                       ref->template_arguments().end(),
                       [](const TemplateArgumentLoc &a) {
                         return a.getArgument().getKind() ==
                                TemplateArgument::Expression;
                       }) &&
           f->getDescribedFunctionTemplate() && !isKernel(C, f) &&
           !isDeviceHelper(C, f) &&
           C.SM.isInMainFile(C.SM.getExpansionLoc(f->getLocation()));
  }

  /// Reads `f`, a host function of a project header, like a main-file
  /// launcher (once); false when it is none such.
  bool follow(const FunctionDecl *f) {
    if (!f->doesThisDeclarationHaveABody() || f->isImplicit() ||
        isKernel(C, f) || isDeviceHelper(C, f) ||
        C.SM.isInMainFile(C.SM.getExpansionLoc(f->getLocation())) ||
        !inRewritableFile(C, f->getLocation()))
      return false;
    if (Followed.insert(f->getCanonicalDecl()).second) {
      LaunchFinder launches(C, f);
      launches.TraverseStmt(f->getBody());
      launches.scanReferences();
      followHostCalls(f);
    }
    return true;
  }

  /// Host function templates of the project's headers that the main file
  /// instantiates explicitly (`template void forward<float>(...);`, the
  /// whole main file of a library built as one translation unit of
  /// included .cu files) are read like the main file's launchers; so are
  /// the member functions of class templates it instantiates explicitly
  /// (`template class Engine<float, Hash>;`, InfiniTAM's engines defined
  /// in `.tcu` headers), from the template or partial specialisation each
  /// instantiation takes them from.
  void followExplicitInstantiations(TranslationUnitDecl *tu) {
    struct Templates : RecursiveASTVisitor<Templates> {
      std::vector<const FunctionTemplateDecl *> functions;
      std::vector<const ClassTemplateDecl *> classes;
      bool VisitFunctionTemplateDecl(FunctionTemplateDecl *t) {
        if (t->isThisDeclarationADefinition())
          functions.push_back(t);
        return true;
      }
      // Once per template: a partial specialisation may be its only
      // definition.
      bool VisitClassTemplateDecl(ClassTemplateDecl *t) {
        if (t->isCanonicalDecl())
          classes.push_back(t);
        return true;
      }
    } templates;
    templates.TraverseDecl(tu);
    auto instantiatedHere = [&](TemplateSpecializationKind kind,
                                SourceLocation at) {
      return kind == TSK_ExplicitInstantiationDefinition &&
             C.SM.isInMainFile(C.SM.getExpansionLoc(at));
    };
    for (const FunctionTemplateDecl *t : templates.functions)
      if (std::any_of(t->spec_begin(), t->spec_end(),
                      [&](const FunctionDecl *spec) {
                        return instantiatedHere(
                            spec->getTemplateSpecializationKind(),
                            spec->getPointOfInstantiation());
                      }))
        follow(t->getTemplatedDecl());
    for (const ClassTemplateDecl *t : templates.classes)
      for (const ClassTemplateSpecializationDecl *spec : t->specializations())
        if (instantiatedHere(spec->getSpecializationKind(),
                             spec->getPointOfInstantiation()))
          for (const CXXMethodDecl *m : spec->methods())
            if (const FunctionDecl *pattern =
                    m->getTemplateInstantiationPattern())
              if (const FunctionDecl *def = pattern->getDefinition())
                follow(def);
  }

  /// A call of a followed launcher (one that launches, directly or through
  /// others): the caller may pass on the launcher's launch parameters.
  void recordHostCall(const FunctionDecl *caller, const FunctionDecl *callee,
                      const CallExpr *call) {
    std::string calleeId = idOf(C, callee);
    if (!C.Sink.Facts.functions.count(calleeId) ||
        !macroBodyOf(C, call->getBeginLoc()).empty())
      return;
    FunctionFacts &from = functionFacts(C, caller, FunctionRole::Host);
    CallFacts cf;
    cf.caller = from.id;
    cf.callee = calleeId;
    // A dispatch macro expands the call once per type: spelled as written
    // (`c_type`), once.
    describeCallee(C, call, call->getCallee()->IgnoreParenImpCasts(), callee,
                   cf, /*typesAsWritten=*/true);
    for (CallFacts &seen : C.Sink.Facts.calls)
      if (!seen.namesKernel() && seen.caller == cf.caller &&
          seen.callee == cf.callee && seen.insertOffset == cf.insertOffset) {
        if (seen.implicitArgs != cf.implicitArgs)
          seen.implicitArgsError =
              "each expansion of the call deduces other template arguments";
        return;
      }
    C.Sink.call(std::move(cf));
  }
  std::set<const FunctionDecl *> Followed;
};

/// Finds references to the main file's non-template kernels that are not
/// the callee of a <<<>>> launch and cannot be given template arguments:
/// outside a host function that can become a template, or in a macro body.
/// And host functions named other than as a call's callee.
class KernelReferenceFinder : public MainFileVisitor<KernelReferenceFinder> {
public:
  using MainFileVisitor::MainFileVisitor;
  bool TraverseFunctionDecl(FunctionDecl *fd) {
    const FunctionDecl *outer = Current;
    if (fd->doesThisDeclarationHaveABody())
      Current = fd;
    bool r = MainFileVisitor::TraverseFunctionDecl(fd);
    Current = outer;
    return r;
  }
  /// The reference will be an edit point (LaunchFinder) where the template
  /// arguments can be written.
  bool editable(const Expr *at) const {
    SourceLocation loc = at->getBeginLoc();
    return Current && !isKernel(C, Current) && !isDeviceHelper(C, Current) &&
           whyCannotTemplate(C, Current).empty() &&
           !(loc.isMacroID() && C.SM.isMacroBodyExpansion(loc)) &&
           isEditableKernelUse(C, at, Current);
  }
  bool VisitCallExpr(CallExpr *call) {
    if (const Expr *callee = call->getCallee())
      Callees.insert(callee->IgnoreParenImpCasts());
    return true;
  }
  bool VisitDeclRefExpr(DeclRefExpr *ref) {
    if (Callees.count(ref) || ref->hasExplicitTemplateArgs())
      return true;
    consider(llvm::dyn_cast<FunctionDecl>(ref->getDecl()), ref);
    return true;
  }
  bool VisitUnresolvedLookupExpr(UnresolvedLookupExpr *ule) {
    if (Callees.count(ule) || ule->hasExplicitTemplateArgs())
      return true;
    for (const NamedDecl *d : ule->decls())
      consider(llvm::dyn_cast<FunctionDecl>(d->getUnderlyingDecl()), ule);
    return true;
  }
  void consider(const FunctionDecl *f, const Expr *at) {
    if (f && !isKernel(C, f) && !isDeviceHelper(C, f) &&
        !llvm::isa<CXXMethodDecl>(f) && !f->getDescribedFunctionTemplate() &&
        !f->isTemplateInstantiation() && inRewritableFile(C, f->getLocation()))
      C.HostNamedNotCalled.insert(f->getCanonicalDecl());
    if (!f || !isKernel(C, f) || f->getDescribedFunctionTemplate() ||
        f->isTemplateInstantiation() ||
        !inRewritableFile(C, f->getLocation()) || editable(at))
      return;
    auto loc = C.SM.getExpansionLoc(at->getBeginLoc());
    C.NamedNotLaunched.try_emplace(f->getCanonicalDecl(),
                                   C.SM.getExpansionLineNumber(loc));
  }
  std::set<const Expr *> Callees;
  const FunctionDecl *Current = nullptr;
};

} // namespace

void findKernelsNamedNotLaunched(DetectContext &c) {
  KernelReferenceFinder finder(c);
  finder.TraverseDecl(c.Ctx.getTranslationUnitDecl());
}

/// Where the main file expands `macro` (raw tokens outside directives).
static std::vector<unsigned> expansionsOf(const SourceManager &sm,
                                          const LangOptions &lo,
                                          llvm::StringRef macro) {
  std::vector<unsigned> out;
  FileID main = sm.getMainFileID();
  llvm::StringRef buffer = sm.getBufferData(main);
  Lexer lexer(sm.getLocForStartOfFile(main), lo, buffer.begin(), buffer.begin(),
              buffer.end());
  Token tok;
  bool directive = false;
  for (bool more = true; more;) {
    more = !lexer.LexFromRawLexer(tok);
    if (tok.isAtStartOfLine())
      directive = tok.is(tok::hash);
    if (!directive && tok.is(tok::raw_identifier) &&
        tok.getRawIdentifier() == macro)
      out.push_back(sm.getFileOffset(tok.getLocation()));
  }
  return out;
}

void dropUncoveredMacroSites(DetectContext &c) {
  struct Holders {
    std::set<std::string> functions;
    bool host = true;
  };
  std::map<Position, int64_t> dropped; // site -> value
  // A header function expanding a header's macro was expanded before the
  // main file redefines it: its launches keep the header's constants.
  for (auto it = c.Sink.Occs.begin(); it != c.Sink.Occs.end();) {
    auto f = c.Sink.Facts.functions.find(it->second.function);
    if (!it->second.macroBody.empty() &&
        c.Sink.Facts.macroCopies.count(it->second.macroBody) &&
        f != c.Sink.Facts.functions.end() &&
        filePart(f->second.rangeBegin) != 0) {
      dropped[it->second.offset] = it->second.value;
      it = c.Sink.Occs.erase(it);
    } else {
      ++it;
    }
  }
  std::map<std::string, Holders> holders; // by macro
  for (const auto &[key, o] : c.Sink.Occs) {
    if (o.macroBody.empty())
      continue;
    Holders &h = holders[o.macroBody];
    h.functions.insert(o.function);
    auto f = c.Sink.Facts.functions.find(o.function);
    h.host &= f != c.Sink.Facts.functions.end() &&
              f->second.role == FunctionRole::Host;
  }
  auto drop = [&](const std::string &macro) {
    for (auto it = c.Sink.Occs.begin(); it != c.Sink.Occs.end();) {
      if (it->second.macroBody != macro) {
        ++it;
        continue;
      }
      dropped[it->second.offset] = it->second.value;
      it = c.Sink.Occs.erase(it);
    }
  };
  for (const auto &[macro, h] : holders) {
    if (!h.host) {
      drop(macro); // device code's macros: their literals are no sites
      continue;
    }
    std::string why;
    unsigned where = 0;
    for (const std::string &id : h.functions) {
      const FunctionFacts &f = c.Sink.Facts.functions.at(id);
      if (!f.cannotTemplate.empty()) {
        why = "it is expanded in " + f.qualifiedName +
              ", which cannot become a template (" + f.cannotTemplate + ")";
        where = localPart(f.offset);
        break;
      }
    }
    auto copy = c.Sink.Facts.macroCopies.find(macro);
    bool header = copy != c.Sink.Facts.macroCopies.end();
    Position first = 0;
    for (const std::string &id : h.functions)
      if (const FunctionFacts &f = c.Sink.Facts.functions.at(id);
          first == 0 || f.rangeBegin < first)
        first = f.rangeBegin;
    if (why.empty() && header) {
      // The redefinition goes on its own line before the first function
      // expanding the macro.
      llvm::StringRef text = c.SM.getBufferData(c.Main);
      size_t token = text.find_first_not_of(" \t\r\n", localPart(first));
      size_t nl = token == llvm::StringRef::npos ? llvm::StringRef::npos
                                                 : text.rfind('\n', token);
      copy->second.insertAt = makePosition(
          0, nl == llvm::StringRef::npos ? 0 : static_cast<unsigned>(nl + 1));
    }
    for (unsigned at : why.empty() ? expansionsOf(c.SM, c.LO, macro)
                                   : std::vector<unsigned>{}) {
      Position position = makePosition(0, at);
      bool covered = std::any_of(
          h.functions.begin(), h.functions.end(), [&](const std::string &id) {
            const FunctionFacts &f = c.Sink.Facts.functions.at(id);
            return f.rangeBegin <= position && position < f.rangeEnd;
          });
      if (!covered) {
        why = "this expansion is not in a function launching with them";
        where = at;
        break;
      }
    }
    if (why.empty())
      continue;
    drop(macro);
    c.Sink.Facts.macroCopies.erase(macro);
    c.Sink.note(noteAt(c, c.SM.getComposedLoc(c.Main, where),
                       "constants in the body of macro " + macro +
                           " are not lifted: " + why +
                           " (every expansion shares their spelling)"));
  }
  // Expressions read before name a dropped site by its value.
  auto byValue = [&](std::string &text) {
    if (auto r = resolveMarkers(text, [&](Position at) {
          auto it = dropped.find(at);
          return it == dropped.end() ? marker(at) : std::to_string(it->second);
        }))
      text = *r;
  };
  if (dropped.empty())
    return;
  for (auto &call : c.Sink.Facts.calls) {
    for (auto *dims : {&call.grid, &call.block})
      for (auto &d : *dims)
        byValue(d);
    byValue(call.smem);
  }
  for (auto &a : c.Sink.Facts.sharedArrays)
    for (auto &e : a.extents)
      byValue(e);
  for (auto &[kernel, bounds] : c.Sink.Facts.launchBounds)
    byValue(bounds);
}

SourceFacts collectFacts(ASTContext &ctx, const std::string &fileAsGiven,
                         const HeaderFilter *headers) {
  SourceFacts facts;
  facts.file = fileAsGiven;
  if (headers)
    facts.includeRoots = headers->roots();
  DetectContext c(ctx, fileAsGiven, facts, headers);
  findKernelsNamedNotLaunched(c);
  FunctionFinder finder(c);
  finder.TraverseDecl(ctx.getTranslationUnitDecl());
  finder.followExplicitInstantiations(ctx.getTranslationUnitDecl());
  collectHostCode(c);
  dropUncoveredMacroSites(c);
  // Header macros whose sites were all dropped need no copy.
  for (auto it = facts.macroCopies.begin(); it != facts.macroCopies.end();)
    if (std::none_of(
            c.Sink.Occs.begin(), c.Sink.Occs.end(),
            [&](const auto &o) { return o.second.macroBody == it->first; }))
      it = facts.macroCopies.erase(it);
    else
      ++it;
  c.Sink.finish();
  return facts;
}

CandidateSet detectCandidates(ASTContext &ctx, const std::string &fileAsGiven,
                              const HeaderFilter *headers) {
  SourceFacts facts = collectFacts(ctx, fileAsGiven, headers);
  attributeHelperOccurrences(facts);
  return buildCandidates(facts);
}

} // namespace ktune::refactor
