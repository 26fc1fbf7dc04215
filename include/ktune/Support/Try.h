//===- ktune/Support/Try.h - Propagating errors -----------------*- C++ -*-===//
//
// The one spelling of "return the error of this Expected (or Status), else go
// on with its value", for functions that themselves return an Expected or a
// Status:
//
//   KTUNE_TRY(writeFileAtomically(path, text));        // Status
//   KTUNE_TRY_ASSIGN(auto spec, specFromJson(json));   // declares `spec`
//   KTUNE_TRY_ASSIGN(plan.kernels, readKernels(json)); // assigns
//
// KTUNE_TRY_ASSIGN expands to several statements (so it can declare its
// left-hand side): give it braces where it is the body of an if or a loop.
// Without them the code does not compile, it never misbehaves.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_SUPPORT_TRY_H
#define KTUNE_SUPPORT_TRY_H

#include <expected>
#include <utility>

/// Returns the error of `expr` (an Expected or a Status) from the enclosing
/// function.
#define KTUNE_TRY(expr)                                                        \
  do {                                                                         \
    auto &&ktuneTryResult = (expr);                                            \
    if (!ktuneTryResult)                                                       \
      return std::unexpected(ktuneTryResult.error());                          \
  } while (false)

#define KTUNE_TRY_CONCAT_INNER(a, b) a##b
#define KTUNE_TRY_CONCAT(a, b) KTUNE_TRY_CONCAT_INNER(a, b)
#define KTUNE_TRY_ASSIGN_IMPL(tmp, lhs, expr)                                  \
  auto tmp = (expr);                                                           \
  if (!tmp)                                                                    \
    return std::unexpected(std::move(tmp).error());                            \
  lhs = std::move(*tmp)

/// Evaluates `expr` (an Expected): returns its error from the enclosing
/// function, or moves its value into `lhs` (a declaration such as `auto x`
/// or an lvalue such as `plan.kernels`).
#define KTUNE_TRY_ASSIGN(lhs, expr)                                            \
  KTUNE_TRY_ASSIGN_IMPL(KTUNE_TRY_CONCAT(ktuneTryValue, __COUNTER__), lhs, expr)

#endif
