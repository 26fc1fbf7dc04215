//===- FunctionFacts.cpp - Kernels, helpers and hosts ---------------------===//
//
// What rewriting needs to know about a function of the main file: its
// names, its template parameters, where each declaration starts (to add a
// template parameter list), and why it cannot become a template when it
// cannot.
//
//===----------------------------------------------------------------------===//

#include "DetectInternal.h"

#include "clang/Lex/Lexer.h"

#include <algorithm>
#include <cctype>
#include <functional>

namespace ktune::refactor {

using namespace clang;

const FunctionDecl *definitionOf(DetectContext &c, const FunctionDecl *fd) {
  if (!fd)
    return nullptr;
  if (const FunctionDecl *p = fd->getTemplateInstantiationPattern())
    fd = p;
  if (const FunctionTemplateDecl *t = fd->getPrimaryTemplate())
    fd = t->getTemplatedDecl();
  const FunctionDecl *def = nullptr;
  if (!fd->hasBody(def) || !def)
    return nullptr;
  if (const FunctionDecl *p = def->getTemplateInstantiationPattern())
    def = p;
  return def;
}

std::string idOf(DetectContext &c, const FunctionDecl *def) {
  auto off = positionOf(c, def->getLocation());
  return off ? functionId(*off) : std::string();
}

bool isKernel(DetectContext &c, const FunctionDecl *fd) {
  return fd->hasAttr<CUDAGlobalAttr>();
}

bool isDeviceHelper(DetectContext &c, const FunctionDecl *fd) {
  return !isKernel(c, fd) && fd->hasAttr<CUDADeviceAttr>();
}

bool runsOnHost(const FunctionDecl *fd) {
  return !fd->hasAttr<CUDAGlobalAttr>() &&
         (!fd->hasAttr<CUDADeviceAttr>() || fd->hasAttr<CUDAHostAttr>());
}

/// A virtual member function defined in its class, declared nowhere else:
/// its body can move to a member template of another name, which the
/// function itself calls (a virtual function cannot be a template).
static bool virtualDefinedInClass(const FunctionDecl *def) {
  const auto *md = llvm::dyn_cast<CXXMethodDecl>(def);
  return md && md->isVirtual() && !md->isOutOfLine() &&
         md->isThisDeclarationADefinition() && !md->getPreviousDecl() &&
         !llvm::isa<CXXDestructorDecl>(md) && !md->getParent()->isLambda() &&
         !md->getParent()->isLocalClass() &&
         !md->getDescribedFunctionTemplate();
}

/// A member function defined out of its class whose own name must stay a
/// plain member's: of a class (other files call `Cls::f`), or of a class
/// template declared in another file or instantiated explicitly (`template
/// class Cls<float>;` makes the instantiations that other files call, and
/// instantiates no member template).
static bool outOfClassNamedByOthers(DetectContext &c, const CXXMethodDecl *md) {
  if (!md->isOutOfLine() || md->getDescribedFunctionTemplate() ||
      md->isTemplateInstantiation())
    return false;
  const CXXRecordDecl *cls = md->getParent();
  if (!cls->isDependentContext())
    return true;
  if (const ClassTemplateDecl *t = cls->getDescribedClassTemplate())
    for (const ClassTemplateSpecializationDecl *s : t->specializations())
      if (s->getSpecializationKind() == TSK_ExplicitInstantiationDefinition)
        return true;
  return c.SM.getFileID(c.SM.getExpansionLoc(md->getLocation())) !=
         c.SM.getFileID(c.SM.getExpansionLoc(cls->getLocation()));
}

/// The class's own declaration of an out-of-class member, where a member
/// template can be declared beside it: declared once in the class, in a
/// file ktune rewrites, not by a macro, ending in `;`. With the position
/// after that `;`.
static std::optional<std::pair<const CXXMethodDecl *, Position>>
classDeclarationOf(DetectContext &c, const CXXMethodDecl *md) {
  const CXXMethodDecl *first = md->getCanonicalDecl();
  if (first == md || first->isOutOfLine() ||
      first->getOuterLocStart().isMacroID() || first->getEndLoc().isMacroID() ||
      first->getLocation().isMacroID() ||
      !inRewritableFile(c, first->getLocation()))
    return std::nullopt;
  auto end = positionOf(
      c, Lexer::getLocForEndOfToken(first->getEndLoc(), 0, c.SM, c.LO));
  if (!end)
    return std::nullopt;
  llvm::StringRef buffer = fileText(c, *end);
  unsigned at = localPart(*end);
  while (at < buffer.size() && std::isspace(buffer[at]))
    ++at;
  if (at >= buffer.size() || buffer[at] != ';')
    return std::nullopt;
  return std::pair{first, makePosition(filePart(*end), at + 1)};
}

/// Another function template of `def`'s name in its scope (dietgpu's
/// kernel `checksumBatch<InProvider, Threads>` beside its launcher
/// `checksumBatch<InProvider>`): once `def` takes one more template
/// parameter, a name with template arguments may mean either.
static const FunctionTemplateDecl *sameNamedTemplate(const FunctionDecl *def) {
  for (const NamedDecl *other :
       def->getDeclContext()->getRedeclContext()->lookup(def->getDeclName()))
    if (const auto *ft =
            llvm::dyn_cast<FunctionTemplateDecl>(other->getUnderlyingDecl()))
      if (ft->getTemplatedDecl()->getCanonicalDecl() != def->getCanonicalDecl())
        return ft;
  return nullptr;
}

/// A virtual member function defined out of its class or class template
/// (InfiniTAM's engines: `void ITMViewBuilder_CUDA::ConvertDisparityToDepth(
/// ...) {...}`, declared `virtual` in the class): its body moves to a member template the class
/// declares beside it, not virtual, as for any out-of-class member, and the
/// virtual function calls it.
static bool virtualDefinedOutOfClass(DetectContext &c,
                                     const CXXMethodDecl *md) {
  return md->isVirtual() && md->isOutOfLine() &&
         !llvm::isa<CXXDestructorDecl>(md) &&
         !md->getDescribedFunctionTemplate() &&
         !md->isTemplateInstantiation() &&
         classDeclarationOf(c, md).has_value();
}

/// `text` without the words `virtual`, `override` and `final` outside
/// parentheses: a member template's declaration copied from a virtual
/// member's.
static std::string withoutVirtualSpecifiers(llvm::StringRef text) {
  std::string out;
  int depth = 0;
  auto isWord = [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
  };
  for (size_t i = 0; i < text.size();) {
    char ch = text[i];
    depth += ch == '(' ? 1 : ch == ')' ? -1 : 0;
    if (depth == 0 && isWord(ch) && (i == 0 || !isWord(text[i - 1]))) {
      size_t end = i;
      while (end < text.size() && isWord(text[end]))
        ++end;
      llvm::StringRef word = text.slice(i, end);
      if (word == "virtual" || word == "override" || word == "final") {
        i = end;
        while (i < text.size() && text[i] == ' ')
          ++i;
        continue;
      }
      out += word.str();
      i = end;
      continue;
    }
    out += ch;
    ++i;
  }
  return llvm::StringRef(out).rtrim().str();
}

std::string whyCannotTemplate(DetectContext &c, const FunctionDecl *def) {
  if (auto it = c.NamedNotLaunched.find(def->getCanonicalDecl());
      it != c.NamedNotLaunched.end())
    return "it is named on line " + std::to_string(it->second) +
           " other than in a launch, where a template's name would not "
           "name one function";
  // A host function with C linkage keeps its symbol through a forwarder;
  // a kernel's C name is what code loading it by name looks for.
  if ((def->isExternC() || def->isInExternCContext()) &&
      (isKernel(c, def) || isDeviceHelper(c, def) || def->isVariadic() ||
       llvm::isa<CXXMethodDecl>(def)))
    return "it has C linkage (extern \"C\")";
  if (const auto *md = llvm::dyn_cast<CXXMethodDecl>(def)) {
    // In a class template the overridden methods are not known yet: an
    // `override` or `final` written on it says so as well.
    const CXXMethodDecl *first = md->getCanonicalDecl();
    if ((md->isVirtual() || first->isVirtualAsWritten() ||
         first->hasAttr<OverrideAttr>() || first->hasAttr<FinalAttr>() ||
         md->hasAttr<OverrideAttr>() || md->hasAttr<FinalAttr>()) &&
        !virtualDefinedInClass(md) && !virtualDefinedOutOfClass(c, md))
      return "it is a virtual member function";
    if (md->getParent()->isLambda())
      return "it is a lambda";
    if (md->getParent()->isLocalClass())
      return "it is a member of a local class";
    if (llvm::isa<CXXConstructorDecl>(md) || llvm::isa<CXXDestructorDecl>(md) ||
        llvm::isa<CXXConversionDecl>(md))
      return "it is a constructor, destructor or conversion (they take no "
             "explicit template arguments)";
    // Its body moves to a member template the class declares beside it
    // (functionFacts) where the class's declaration can take one.
    if (outOfClassNamedByOthers(c, md) && !classDeclarationOf(c, md))
      return md->getParent()->isDependentContext()
                 ? "it is a member of a class template defined out of its "
                   "class, in another file than the class, whose "
                   "instantiations other files call, and the class's "
                   "declaration of it cannot declare a template beside it"
                 : "it is a member function defined out of its class, whose "
                   "declaration other files call, and the class's "
                   "declaration of it cannot declare a template beside it";
  }
  // `void NS::render(...) {...}` defines what a declaration inside NS
  // declared: a template of that name would not match it, and its
  // forwarder would no longer find a declaration.
  if (def->getQualifier() && !llvm::isa<CXXMethodDecl>(def))
    return "it is defined out of its namespace with a qualified name, and "
           "its declaration stays a non-template";
  if (def->isOverloadedOperator())
    return "it is an operator (operators take no explicit template "
           "arguments)";
  if (def->getTemplateSpecializationKind() == TSK_ExplicitSpecialization)
    return "it is an explicit specialisation";
  // nvcc's host stubs of overloaded kernel templates (vLLM's enable_if
  // pairs) must have the same template parameters: one gaining a parameter
  // alone no longer compiles.
  if (def->hasAttr<CUDAGlobalAttr>())
    for (const NamedDecl *other :
         def->getDeclContext()->lookup(def->getDeclName())) {
      const auto *f = llvm::dyn_cast<FunctionDecl>(other->getUnderlyingDecl());
      if (const auto *ft = llvm::dyn_cast<FunctionTemplateDecl>(other))
        f = ft->getTemplatedDecl();
      if (f && f->getCanonicalDecl() != def->getCanonicalDecl() &&
          f->hasAttr<CUDAGlobalAttr>())
        return "it is an overloaded kernel (nvcc needs the overloads' "
               "template parameters alike)";
    }
  const FunctionTemplateDecl *t = def->getDescribedFunctionTemplate();
  if (t && !def->hasAttr<CUDAGlobalAttr>())
    if (const FunctionTemplateDecl *other = sameNamedTemplate(def))
      return "it shares its name with the function template on line " +
             std::to_string(c.SM.getExpansionLineNumber(other->getLocation())) +
             ": with one more template parameter, a name with template "
             "arguments (`" +
             def->getNameAsString() + "<...>`) could mean either";
  if (t)
    for (const NamedDecl *p : *t->getTemplateParameters())
      if (p->isTemplateParameterPack())
        return "its template ends in a parameter pack";
  for (const FunctionDecl *r : def->redecls()) {
    if (!inRewritableFile(c, r->getLocation())) {
      llvm::StringRef where =
          c.SM.getFilename(c.SM.getExpansionLoc(r->getLocation()));
      return where.empty() ? "it is declared in a file ktune does not rewrite"
                           : "it is declared in " + where.str() +
                                 ", which ktune does not rewrite (see "
                                 "--header-filter)";
    }
    if (r->getBeginLoc().isMacroID() &&
        !c.SM.isMacroBodyExpansion(r->getBeginLoc()) &&
        !c.SM.isMacroArgExpansion(r->getBeginLoc()))
      return "it is declared inside a macro";
  }
  return {};
}

void readTemplateParams(DetectContext &c, const FunctionTemplateDecl *tmpl,
                        FunctionFacts &f) {
  for (const NamedDecl *p : *tmpl->getTemplateParameters()) {
    TemplateParamFacts tp;
    tp.name = p->getNameAsString();
    tp.isPack = p->isTemplateParameterPack();
    if (const auto *t = llvm::dyn_cast<TemplateTypeParmDecl>(p)) {
      tp.type = "typename";
      if (t->hasDefaultArgument())
        tp.defaultText = textOf(c, t->getDefaultArgument().getSourceRange());
    } else if (const auto *n = llvm::dyn_cast<NonTypeTemplateParmDecl>(p)) {
      std::string spelled =
          textOf(c, n->getTypeSourceInfo()->getTypeLoc().getSourceRange());
      // A declarator around the name (`float (*Activation)(const float &)`)
      // is no type: print the type itself.
      if (spelled.find(tp.name) != std::string::npos) {
        PrintingPolicy pp(c.LO);
        pp.SuppressTagKeyword = true;
        spelled = n->getType().getAsString(pp);
      }
      tp.type = spelled.empty() ? n->getType().getAsString() : spelled;
      if (n->hasDefaultArgument())
        tp.defaultText = textOf(c, n->getDefaultArgument().getSourceRange());
    } else {
      tp.type = "template";
    }
    f.templateParams.push_back(std::move(tp));
  }
}

/// The whitespace that starts the line holding `at`.
static std::string indentOfLine(DetectContext &c, Position at) {
  llvm::StringRef buffer = fileText(c, at);
  unsigned lineStart = localPart(at);
  while (lineStart > 0 && buffer[lineStart - 1] != '\n')
    --lineStart;
  unsigned i = lineStart;
  while (i < buffer.size() && (buffer[i] == ' ' || buffer[i] == '\t'))
    ++i;
  return buffer.substr(lineStart, i - lineStart).str();
}

/// `ktune_<name>`, with underscores added until the class of `md` has no
/// member of that name: the member template a member's body moves to.
static std::string memberTemplateName(DetectContext &c, const CXXMethodDecl *md,
                                      const std::string &name) {
  std::string out = "ktune_" + name;
  while (
      !md->getParent()->lookup(DeclarationName(&c.Ctx.Idents.get(out))).empty())
    out += "_";
  return out;
}

/// Declarations in source order: where a template parameter list goes, and
/// the indentation of its line.
void readDeclarations(DetectContext &c, const FunctionDecl *def,
                      FunctionFacts &f) {
  std::vector<const FunctionDecl *> decls(def->redecls_begin(),
                                          def->redecls_end());
  std::sort(decls.begin(), decls.end(), [&](auto *a, auto *b) {
    return c.SM.isBeforeInTranslationUnit(a->getLocation(), b->getLocation());
  });
  for (const FunctionDecl *d : decls) {
    DeclarationFacts df;
    df.isDefinition = d->doesThisDeclarationHaveABody();
    // The other declarations of a C function (or of main) name the
    // forwarder.
    if ((f.cLinkage || !f.templateName.empty()) && !df.isDefinition)
      continue;
    const FunctionTemplateDecl *dt = d->getDescribedFunctionTemplate();
    std::optional<Position> off;
    if (dt) {
      df.hasTemplateList = true;
      df.emptyTemplateList = dt->getTemplateParameters()->size() == 0;
      off = positionOf(c, dt->getTemplateParameters()->getRAngleLoc());
    } else if (unsigned lists = d->getNumTemplateParameterLists()) {
      // A member of a class template defined out of line (`template <typename
      // T> R S<T>::f(...)`): its own list goes after the class's.
      off =
          positionOf(c, d->getTemplateParameterList(lists - 1)->getRAngleLoc());
      if (off) {
        llvm::StringRef buffer = fileText(c, *off);
        unsigned at = localPart(*off) + 1;
        while (at < buffer.size() && std::isspace(buffer[at]))
          ++at;
        off = makePosition(filePart(*off), at);
      }
    } else {
      off = positionOf(c, c.SM.getExpansionLoc(d->getOuterLocStart()));
    }
    if (!off) {
      if (f.cannotTemplate.empty())
        f.cannotTemplate =
            "a declaration of it starts outside the files ktune rewrites";
      continue;
    }
    df.insertOffset = *off;
    df.indent = indentOfLine(c, *off);
    f.declarations.push_back(df);
  }
}

/// `name` appears in `text` as a whole identifier.
static bool namesIdentifier(llvm::StringRef text, llvm::StringRef name) {
  auto identChar = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  };
  for (size_t at = text.find(name); at != llvm::StringRef::npos;
       at = text.find(name, at + 1)) {
    size_t end = at + name.size();
    if ((at == 0 || !identChar(text[at - 1])) &&
        (end == text.size() || !identChar(text[end])))
      return true;
  }
  return false;
}

/// A non-template free host function visible to other files keeps its
/// symbol through a forwarding overload once it becomes a template; so
/// does a virtual member, whose body moves to a member template.
static bool needsForwarder(const FunctionDecl *def, const FunctionFacts &f) {
  return f.role == FunctionRole::Host && !f.isTemplate &&
         (def->isExternallyVisible() || !f.templateName.empty()) &&
         (!llvm::isa<CXXMethodDecl>(def) || f.isVirtual ||
          f.outOfClassMember) &&
         f.bodyBegin != 0;
}

/// Where `virtual`, `override` and `final` are spelled on a virtual member
/// defined in its class: its member template cannot have them (the
/// function calling it keeps them). False when one is not in the file's
/// text (spelled by a macro).
static bool readVirtualSpecifiers(DetectContext &c, const CXXMethodDecl *md,
                                  FunctionFacts &f) {
  auto begin = positionOf(c, md->getOuterLocStart());
  if (!begin || md->getOuterLocStart().isMacroID() ||
      md->getLocation().isMacroID() || filePart(*begin) != filePart(f.offset))
    return false;
  llvm::StringRef head =
      fileText(c, f.offset).slice(localPart(*begin), localPart(f.offset));
  auto isWord = [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
  };
  for (size_t at = head.find("virtual"); at != llvm::StringRef::npos;
       at = head.find("virtual", at + 1))
    if ((at == 0 || !isWord(head[at - 1])) &&
        (at + 7 == head.size() || !isWord(head[at + 7])))
      f.templateDrops.emplace_back(*begin + static_cast<unsigned>(at), 7);
  for (const Attr *a : md->attrs()) {
    if (!llvm::isa<OverrideAttr>(a) && !llvm::isa<FinalAttr>(a))
      continue;
    auto at = positionOf(c, a->getLocation());
    if (!at || a->getLocation().isMacroID())
      return false;
    unsigned length = llvm::isa<OverrideAttr>(a) ? 8 : 5;
    if (text(c, *at, length) != (length == 8 ? "override" : "final"))
      return false;
    f.templateDrops.emplace_back(*at, length);
  }
  return true;
}

/// Another function of `def`'s name declared at namespace scope elsewhere:
/// an unqualified call may find both (`using namespace`).
static bool otherNamespaceFunctionNamed(DetectContext &c,
                                        const FunctionDecl *def) {
  if (!def->getDeclName().isIdentifier())
    return false;
  const DeclContext *home = def->getDeclContext()->getRedeclContext();
  std::function<bool(const DeclContext *)> search = [&](const DeclContext *dc) {
    for (const Decl *d : dc->decls()) {
      if (const auto *ns = llvm::dyn_cast<NamespaceDecl>(d)) {
        if (search(ns))
          return true;
      } else if (const auto *ls = llvm::dyn_cast<LinkageSpecDecl>(d)) {
        if (search(ls))
          return true;
      } else if (const auto *nd = llvm::dyn_cast<NamedDecl>(d);
                 nd && nd->getDeclName() == def->getDeclName() &&
                 (llvm::isa<FunctionDecl>(nd) ||
                  llvm::isa<FunctionTemplateDecl>(nd)) &&
                 !dc->getRedeclContext()->Equals(home)) {
        return true;
      }
    }
    return false;
  };
  return search(c.Ctx.getTranslationUnitDecl());
}

void readForwarder(DetectContext &c, const FunctionDecl *def,
                   FunctionFacts &f) {
  if (!needsForwarder(def, f) || def->isVariadic())
    return;
  bool named =
      std::all_of(def->param_begin(), def->param_end(),
                  [](const ParmVarDecl *p) { return !p->getName().empty(); });
  for (const auto &d : f.declarations) {
    if (!d.isDefinition || !named || def->getReturnType()->isUndeducedType())
      continue;
    // A member of a class template defined out of its class: its forwarder
    // needs the class's template list too.
    Position from = d.insertOffset;
    if (f.outOfClassMember)
      if (auto outer = positionOf(c, def->getOuterLocStart()))
        from = *outer;
    f.forwarderSignature =
        llvm::StringRef(text(c, from, f.bodyBegin - 1 - from)).rtrim().str();
  }
  if (!otherNamespaceFunctionNamed(c, def))
    return;
  std::string qualifier = "::";
  for (const DeclContext *dc = def->getDeclContext(); dc;
       dc = dc->getParent()) {
    if (llvm::isa<TranslationUnitDecl>(dc) || llvm::isa<LinkageSpecDecl>(dc))
      continue;
    const auto *ns = llvm::dyn_cast<NamespaceDecl>(dc);
    if (!ns || ns->isAnonymousNamespace()) {
      qualifier.clear();
      break;
    }
    qualifier = "::" + ns->getNameAsString() + qualifier;
  }
  f.forwarderQualifier = qualifier;
  f.returnType = def->getReturnType().getAsString();
}

void canonicalArgType(QualType type, const PrintingPolicy &policy,
                      KernelArg &arg) {
  if (type.isNull() || type->isDependentType())
    return;
  QualType t = type.getCanonicalType().getUnqualifiedType();
  if (const auto *e = t->getAs<EnumType>()) {
    const EnumDecl *decl = e->getDecl();
    arg.enumName = decl->getQualifiedNameAsString();
    t = decl->getIntegerType();
    if (t.isNull())
      return;
    t = t.getCanonicalType().getUnqualifiedType();
  }
  arg.canonicalType = t.getAsString(policy);
}

/// The parameters with their types as spelled, and as the AST resolves
/// them (canonical, an enum as its underlying integer).
void readArgs(DetectContext &c, const FunctionDecl *def, FunctionFacts &f) {
  for (const ParmVarDecl *p : def->parameters()) {
    KernelArg a;
    a.name = p->getNameAsString();
    std::string spelled;
    if (!a.name.empty()) {
      auto begin = positionOf(c, p->getBeginLoc());
      auto name = positionOf(c, p->getLocation());
      if (begin && name && *name > *begin && !p->getBeginLoc().isMacroID() &&
          !p->getLocation().isMacroID())
        spelled = llvm::StringRef(text(c, *begin, *name - *begin)).trim().str();
    }
    PrintingPolicy pp(c.LO);
    pp.SuppressTagKeyword = true;
    a.type = spelled.empty() ? p->getType().getAsString(pp) : spelled;
    canonicalArgType(p->getType(), pp, a);
    f.args.push_back(std::move(a));
    f.paramTypes.push_back(p->getType().getAsString(pp));
  }
}

FunctionFacts &functionFacts(DetectContext &c, const FunctionDecl *def,
                             FunctionRole role) {
  std::string id = idOf(c, def);
  auto it = c.Sink.Facts.functions.find(id);
  if (it != c.Sink.Facts.functions.end()) {
    if (role == FunctionRole::Kernel)
      it->second.role = role;
    return it->second;
  }
  FunctionFacts f;
  f.id = id;
  f.role = role;
  f.name = def->getNameAsString();
  {
    std::string q;
    llvm::raw_string_ostream os(q);
    PrintingPolicy p(c.LO);
    p.SuppressUnwrittenScope = true;
    p.SuppressInlineNamespace = true;
    def->printQualifiedName(os, p);
    f.qualifiedName = os.str();
  }
  f.offset = *positionOf(c, def->getLocation());
  f.line = lineCol(c, f.offset).first;
  const FunctionTemplateDecl *tmpl = def->getDescribedFunctionTemplate();
  f.isTemplate = tmpl != nullptr;
  f.atNamespaceScope =
      def->getDeclContext()->getRedeclContext()->isFileContext();
  if (tmpl)
    readTemplateParams(c, tmpl, f);
  f.cannotTemplate = whyCannotTemplate(c, def);
  f.cLinkage = role == FunctionRole::Host &&
               (def->isExternC() || def->isInExternCContext());
  if (role == FunctionRole::Host && f.cannotTemplate.empty() &&
      virtualDefinedInClass(def)) {
    // The body moves to a member template of another name; the virtual
    // function calls it with the defaults.
    f.isVirtual = true;
    const auto *md = llvm::cast<CXXMethodDecl>(def);
    f.templateName = memberTemplateName(c, md, f.name);
    if (!readVirtualSpecifiers(c, md, f))
      f.cannotTemplate = "it is a virtual member function whose `virtual`, "
                         "`override` or `final` a macro spells";
  }
  if (const auto *md = llvm::dyn_cast<CXXMethodDecl>(def);
      md && role == FunctionRole::Host && f.cannotTemplate.empty() &&
      (outOfClassNamedByOthers(c, md) || virtualDefinedOutOfClass(c, md))) {
    // The body moves to a member template the class declares after its
    // declaration of the function, which calls it with the defaults.
    auto [first, end] = *classDeclarationOf(c, md);
    f.outOfClassMember = true;
    f.templateName = memberTemplateName(c, md, f.name);
    Position begin = *positionOf(c, first->getOuterLocStart());
    Position name = *positionOf(c, first->getLocation());
    std::string declaration = text(c, begin, end - 1 - begin);
    declaration.replace(name - begin, f.name.size(), f.templateName);
    f.memberDeclaration = md->isVirtual()
                              ? withoutVirtualSpecifiers(declaration)
                              : llvm::StringRef(declaration).rtrim().str();
    f.memberDeclarationEnd = end;
    f.memberDeclarationIndent = indentOfLine(c, begin);
  }
  if (def->isMain() || (role == FunctionRole::Host &&
                        (c.HostNamedNotCalled.count(def->getCanonicalDecl()) ||
                         (!f.isTemplate && sameNamedTemplate(def))))) {
    // main cannot be a template, nor a function whose name is taken
    // (`&f`: a template of that name would make it an overload set), nor
    // one whose name a function template has (`f<A>` could then mean
    // either): a template of another name takes its body, and the function
    // calls it.
    f.templateName = "ktune_" + f.name;
    while (namesIdentifier(fileText(c, 0), f.templateName))
      f.templateName += "_";
  }
  readDeclarations(c, def, f);
  if (const auto *body = llvm::dyn_cast_or_null<CompoundStmt>(def->getBody())) {
    f.endsWithReturn =
        !body->body_empty() && llvm::isa<ReturnStmt>(body->body_back());
    if (auto off = positionOf(c, body->getLBracLoc()))
      f.bodyBegin = *off + 1;
    if (auto off = positionOf(c, body->getRBracLoc()))
      f.rangeEnd = *off + 1;
  }
  readForwarder(c, def, f);
  if (needsForwarder(def, f) && f.forwarderSignature.empty() &&
      f.cannotTemplate.empty())
    f.cannotTemplate = def->isVariadic()
                           ? "it is variadic (no forwarding overload can "
                             "keep its symbol)"
                           : "no forwarding overload can keep its symbol "
                             "(unnamed parameters, or a deduced return type)";
  {
    PrintingPolicy pp(c.LO);
    pp.SuppressTagKeyword = true;
    f.returnType = def->getReturnType().getAsString(pp);
  }
  f.rangeBegin = f.offset;
  for (const auto &d : f.declarations)
    if (d.isDefinition && !d.hasTemplateList)
      f.rangeBegin = std::min(f.rangeBegin, d.insertOffset);
  if (tmpl)
    if (auto off =
            positionOf(c, tmpl->getTemplateParameters()->getTemplateLoc()))
      f.rangeBegin = std::min(f.rangeBegin, *off);
  readArgs(c, def, f);
  return c.Sink.Facts.functions.emplace(id, std::move(f)).first->second;
}

} // namespace ktune::refactor
