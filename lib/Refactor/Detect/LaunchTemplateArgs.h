//===- LaunchTemplateArgs.h - Spelling implicit template args ---*- C++ -*-===//
//
// When a kernel or helper that is already a template gains parameters at
// the end of its list, every call must name all earlier arguments
// explicitly: `k<<<g, b>>>(x)` with T deduced becomes `k<float, B><<<g,
// b>>>(x)`. This spells the arguments a call leaves implicit, as text valid at
// the call: from the resolved specialisation when the call is not dependent,
// otherwise by matching the callee's parameter types against the argument
// types (`const T *` against `const scalar_t *` gives `scalar_t`), or from
// the parameter's default.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_LIB_REFACTOR_LAUNCHTEMPLATEARGS_H
#define KTUNE_LIB_REFACTOR_LAUNCHTEMPLATEARGS_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/Expr.h"

#include <string>
#include <vector>

namespace ktune::refactor {

/// Arguments for parameters [explicitCount, N) of `callee`'s template, or an
/// error message in `whyNot`. `resolved` is the specialisation the name
/// resolves to (null when dependent); `call`, when the name is called
/// directly, gives the argument types to deduce from. `asWritten`: a type
/// the arguments spell (`c_type` of a dispatch macro's lambda, expanded once
/// per type) is preferred to the one the specialisation holds, where they
/// are the same type.
bool spellImplicitTemplateArgs(const clang::CallExpr *call,
                               const clang::FunctionDecl *resolved,
                               const clang::FunctionTemplateDecl *callee,
                               unsigned explicitCount, clang::ASTContext &ctx,
                               std::vector<std::string> &out,
                               std::string &whyNot, bool asWritten = false);

/// Prints a type so it can be written at the call: fully qualified when it
/// is not dependent.
std::string spellType(clang::QualType type, clang::ASTContext &ctx);

} // namespace ktune::refactor

#endif
