//===- LaunchTemplateArgs.cpp - Spelling implicit template args -----------===//
//
// The template arguments a call leaves to deduction or defaults, spelled
// as text valid at the call (LaunchTemplateArgs.h), so that a call of a
// function that gains template parameters can name every earlier one.
//
//===----------------------------------------------------------------------===//

#include "LaunchTemplateArgs.h"

#include "clang/AST/QualTypeNames.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <map>

namespace ktune::refactor {

static clang::PrintingPolicy spellingPolicy(clang::ASTContext &ctx) {
  clang::PrintingPolicy p(ctx.getLangOpts());
  p.SuppressTagKeyword = true;
  p.SuppressUnwrittenScope = true;
  p.Bool = true;
  return p;
}

std::string spellType(clang::QualType type, clang::ASTContext &ctx) {
  clang::PrintingPolicy p = spellingPolicy(ctx);
  if (type->isDependentType())
    return type.getAsString(p);
  return clang::TypeName::getFullyQualifiedName(type, ctx, p,
                                                /*WithGlobalNsPrefix=*/false);
}

static std::string spellArgument(const clang::TemplateArgument &arg,
                                 const clang::NamedDecl *param,
                                 clang::ASTContext &ctx) {
  switch (arg.getKind()) {
  case clang::TemplateArgument::Type:
    return spellType(arg.getAsType(), ctx);
  case clang::TemplateArgument::Integral: {
    clang::QualType type = arg.getIntegralType();
    if (type->isBooleanType())
      return arg.getAsIntegral().getBoolValue() ? "true" : "false";
    llvm::SmallString<16> s;
    arg.getAsIntegral().toString(s, 10);
    // A number converts to no enum parameter: name the enumerator through
    // its enum (valid for unscoped ones too), else cast the number.
    if (const auto *et = type->getAs<clang::EnumType>();
        et && et->getDecl()->getIdentifier()) {
      std::string enumName = spellType(type, ctx);
      for (const clang::EnumConstantDecl *e : et->getDecl()->enumerators())
        if (llvm::APSInt::isSameValue(e->getInitVal(), arg.getAsIntegral()))
          return enumName + "::" + e->getNameAsString();
      return "static_cast<" + enumName + ">(" + std::string(s) + ")";
    }
    return std::string(s);
  }
  default: {
    std::string s;
    llvm::raw_string_ostream os(s);
    arg.print(spellingPolicy(ctx), os, /*IncludeType=*/false);
    return os.str();
  }
  }
}

/// Deduces type parameters (at `depth`) of `param` from `arg`.
static bool deduce(clang::QualType param, clang::QualType arg, unsigned depth,
                   clang::ASTContext &ctx,
                   std::map<unsigned, clang::QualType> &out) {
  if (param.isNull() || arg.isNull())
    return true;
  if (const auto *ref = param->getAs<clang::ReferenceType>())
    param = ref->getPointeeType();
  arg = arg.getNonReferenceType();
  if (arg->isArrayType())
    arg = ctx.getArrayDecayedType(arg);

  if (const auto *tp = llvm::dyn_cast<clang::TemplateTypeParmType>(
          param.getCanonicalType().getTypePtr())) {
    if (tp->getDepth() != depth)
      return true;
    clang::Qualifiers argQuals = arg.getQualifiers();
    argQuals.removeCVRQualifiers(param.getCanonicalType().getCVRQualifiers());
    clang::QualType value =
        ctx.getQualifiedType(arg.getUnqualifiedType(), argQuals);
    auto [it, inserted] = out.emplace(tp->getIndex(), value);
    return inserted ||
           ctx.hasSameType(it->second.getCanonicalType(),
                           value.getCanonicalType()) ||
           it->second->isDependentType() || value->isDependentType();
  }
  const auto *pp = param->getAs<clang::PointerType>();
  const auto *ap = arg->getAs<clang::PointerType>();
  if (pp && ap)
    return deduce(pp->getPointeeType(), ap->getPointeeType(), depth, ctx, out);
  return true;
}

bool spellImplicitTemplateArgs(const clang::CallExpr *call,
                               const clang::FunctionDecl *resolved,
                               const clang::FunctionTemplateDecl *callee,
                               unsigned explicitCount, clang::ASTContext &ctx,
                               std::vector<std::string> &out,
                               std::string &whyNot, bool asWritten) {
  const clang::TemplateParameterList *params = callee->getTemplateParameters();
  if (explicitCount >= params->size())
    return true;
  for (unsigned i = explicitCount; i < params->size(); ++i)
    if (params->getParam(i)->isParameterPack()) {
      whyNot = "the template has a parameter pack";
      return false;
    }

  // Not dependent: the call names a specialisation.
  if (const clang::FunctionDecl *fd = resolved) {
    if (const auto *args = fd->getTemplateSpecializationArgs()) {
      std::map<unsigned, clang::QualType> written;
      const clang::FunctionDecl *pattern = callee->getTemplatedDecl();
      if (asWritten && call)
        for (unsigned i = 0; i < std::min<unsigned>(pattern->getNumParams(),
                                                    call->getNumArgs());
             ++i)
          if (!deduce(pattern->getParamDecl(i)->getType(),
                      call->getArg(i)->IgnoreParenImpCasts()->getType(),
                      params->getDepth(), ctx, written))
            written.clear();
      for (unsigned i = explicitCount; i < params->size() && i < args->size();
           ++i) {
        auto w = written.find(i);
        if (w != written.end() &&
            args->get(i).getKind() == clang::TemplateArgument::Type &&
            ctx.hasSameType(w->second, args->get(i).getAsType()))
          out.push_back(spellType(w->second, ctx));
        else
          out.push_back(spellArgument(args->get(i), params->getParam(i), ctx));
      }
      if (out.size() == params->size() - explicitCount)
        return true;
      out.clear();
    }
  }

  // Dependent: deduce from the argument types, else use defaults.
  std::map<unsigned, clang::QualType> deduced;
  const clang::FunctionDecl *pattern = callee->getTemplatedDecl();
  if (call) {
    unsigned n =
        std::min<unsigned>(pattern->getNumParams(), call->getNumArgs());
    for (unsigned i = 0; i < n; ++i) {
      const clang::Expr *a = call->getArg(i)->IgnoreParenImpCasts();
      if (!deduce(pattern->getParamDecl(i)->getType(), a->getType(),
                  params->getDepth(), ctx, deduced)) {
        whyNot = "conflicting deductions for a template parameter";
        return false;
      }
    }
  }
  const clang::SourceManager &sm = ctx.getSourceManager();
  for (unsigned i = explicitCount; i < params->size(); ++i) {
    const clang::NamedDecl *p = params->getParam(i);
    if (auto it = deduced.find(i); it != deduced.end()) {
      out.push_back(spellType(it->second, ctx));
      continue;
    }
    clang::SourceRange def;
    if (const auto *t = llvm::dyn_cast<clang::TemplateTypeParmDecl>(p);
        t && t->hasDefaultArgument())
      def = t->getDefaultArgument().getSourceRange();
    else if (const auto *n = llvm::dyn_cast<clang::NonTypeTemplateParmDecl>(p);
             n && n->hasDefaultArgument())
      def = n->getDefaultArgument().getSourceRange();
    if (def.isValid()) {
      auto range = clang::Lexer::makeFileCharRange(
          clang::CharSourceRange::getTokenRange(def), sm, ctx.getLangOpts());
      if (range.isValid()) {
        out.push_back(
            clang::Lexer::getSourceText(range, sm, ctx.getLangOpts()).str());
        continue;
      }
    }
    whyNot = "cannot tell the argument for template parameter '" +
             p->getNameAsString() + "' at this call; write it explicitly";
    out.clear();
    return false;
  }
  return true;
}

} // namespace ktune::refactor
