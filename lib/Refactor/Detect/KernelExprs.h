//===- KernelExprs.h - How host code spells a kernel ------------*- C++ -*-===//
#ifndef KTUNE_REFACTOR_DETECT_KERNELEXPRS_H
#define KTUNE_REFACTOR_DETECT_KERNELEXPRS_H

#include "clang/AST/Expr.h"

namespace ktune::refactor {

/// `e` without parentheses, casts and `&`: what a launch API's
/// `(const void *)&k` or `reinterpret_cast<void *>(func)` names.
const clang::Expr *stripCasts(const clang::Expr *e);

} // namespace ktune::refactor

#endif
