//===- ktune/Expr/Expr.h - ktune's small expression language ----*- C++ -*-===//
//
// Constraints, shapes, launch geometry and byte counts are written in a small
// language of our own: integer and floating literals, names, + - * / % **,
// comparisons, `and or not` and `&& || !`, `c ? a : b`, parentheses and the
// functions min, max, ceil_div and abs. Text is parsed into a tree and
// evaluated by walking it; it never reaches a shell, compiler or interpreter.
// The Python dialect reads Kernel Tuner / T1 restrictions (`/` is true
// division, `//` floor division, `%` floor modulo, True/False).
//
// The language is total: any text parses to an expression or an error, and
// any evaluation gives a value or an error. Integer overflow, division by
// zero and out-of-range literals are errors, never undefined behaviour;
// text longer than MaxTextLength or nested deeper than MaxNestingDepth is
// refused, so recursion and output stay bounded.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_EXPR_EXPR_H
#define KTUNE_EXPR_EXPR_H

#include "ktune/Support/Error.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::expr {

/// The longest expression text Expr::parse reads, in bytes.
inline constexpr size_t MaxTextLength = 64 * 1024;
/// The deepest nesting Expr::parse accepts: parentheses, operators and
/// calls inside one another, and chains of binary operators (`a+b+c` is
/// nested two deep).
inline constexpr int MaxNestingDepth = 256;

/// An integer or a floating-point number. Booleans are the integers 0 and 1.
struct Value {
  enum class Type { Int, Float };
  Type type = Type::Int;
  int64_t i = 0;
  double f = 0.0;

  static Value ofInt(int64_t v) { return {Type::Int, v, 0.0}; }
  static Value ofFloat(double v) { return {Type::Float, 0, v}; }
  static Value ofBool(bool v) { return ofInt(v ? 1 : 0); }

  bool isInt() const { return type == Type::Int; }
  double asDouble() const { return isInt() ? static_cast<double>(i) : f; }
  bool truthy() const { return isInt() ? i != 0 : f != 0.0; }
  /// The value as an int64_t when it is an integer, or a float that is
  /// integral and within int64_t's range; nullopt for 2.5, NaN, inf, 1e30.
  std::optional<int64_t> exactInt() const;
  /// "256" or "1e-06"-style shortest round-trip text.
  std::string str() const;
  bool operator==(const Value &other) const;
};

enum class Dialect { Ktune, Python };

/// How Expr::toCpp binds an operand that a C++ form uses more than once
/// (`a // b` needs a and b three times) when it is not a name or a literal:
/// Lambda: as the parameter of an immediately invoked lambda; the text is
///   self-contained C++17 (host code; nvcc device code too, but NVRTC does
///   not accept a lambda in device code).
/// Helper: as the argument of a function of namespace ktune_expr, which
///   cppHelpers() defines (__host__ __device__ under CUDA); for kernel code.
enum class CppForm { Lambda, Helper };

struct Node;

/// Looks up a name; nullopt means "unknown name" (an error at evaluation).
using NameLookup = std::function<std::optional<Value>(std::string_view)>;

class BoundExpr;

/// An immutable parsed expression. Cheap to copy (shares its tree).
class Expr {
public:
  /// Parses `text`. Errors give the 1-based column: "col 7: unexpected ')'".
  /// Text over MaxTextLength, nesting over MaxNestingDepth, and integer or
  /// floating literals out of int64_t / double range are errors.
  static Expected<Expr> parse(std::string_view text,
                              Dialect dialect = Dialect::Ktune);
  /// A literal integer expression.
  static Expr integer(int64_t value);

  /// The text it was parsed from.
  const std::string &text() const { return Source; }
  /// Canonical text in the ktune dialect (minimal parentheses).
  std::string str() const;
  /// Equivalent C++17 expression, for static_assert and generated headers;
  /// its size is linear in the expression's: an operand that a C++ form
  /// needs more than once is written out each time only when it is a name
  /// or a literal, and otherwise bound once as `form` says.
  std::string toCpp(CppForm form = CppForm::Lambda) const;
  /// Names referenced, each once, in order of first appearance.
  std::vector<std::string> names() const;

  /// Errors of arithmetic (overflow, division by zero) give the column and
  /// quote the failing part and the expression's text:
  /// "col 3: integer overflow in 'a * b' (in 'a * b < 8')".
  Expected<Value> evaluate(const NameLookup &lookup) const;
  Expected<Value> evaluate(const std::map<std::string, Value> &env) const;
  /// Evaluates and requires an integer result (a float that is integral and
  /// within int64_t's range is accepted).
  Expected<int64_t> evaluateInt(const std::map<std::string, Value> &env) const;

  /// Replaces names by other expressions (parameters held at a value).
  Expr substitute(const std::map<std::string, Expr> &replacements) const;
  /// Renames names (old -> new; parameters renamed by a plan or a fix).
  Expr rename(const std::map<std::string, std::string> &renames) const;

  /// Resolves names to positions in `slots` once, for fast repeated
  /// evaluation; an error names the first name not in `slots`.
  Expected<BoundExpr> bind(const std::vector<std::string> &slots) const;

  /// If the expression is a single integer literal (possibly negated), its
  /// value.
  std::optional<int64_t> asIntegerLiteral() const;

private:
  Expr(std::shared_ptr<const Node> root, std::string source, Dialect dialect)
      : Root(std::move(root)), Source(std::move(source)), Lang(dialect) {}
  std::shared_ptr<const Node> Root;
  std::string Source;
  Dialect Lang = Dialect::Ktune;
  friend class BoundExpr;
};

/// An expression whose names were resolved to slots of a value array.
class BoundExpr {
public:
  Expected<Value> evaluate(std::span<const Value> slots) const;
  /// Convenience for integer-only slots: true when the value is truthy;
  /// evaluation errors (division by zero) count as false.
  bool holds(std::span<const int64_t> slots) const;

private:
  friend class Expr;
  struct Program;
  std::shared_ptr<const Program> Code;
};

/// Parses a list of constraint texts; errors name the index ("[2]: col 5:
/// ...").
Expected<std::vector<Expr>> parseAll(const std::vector<std::string> &texts,
                                     Dialect dialect = Dialect::Ktune);

/// Expression text with parameters renamed (old -> new name). Text that
/// does not parse, or that mentions none of the renamed names, comes back
/// as it was (the caller's validation reports what does not parse);
/// otherwise the renamed expression's canonical text (Expr::str).
std::string
renameIdentifiers(std::string_view text,
                  const std::map<std::string, std::string> &renames);
/// The same for names replaced by expressions (parameters held at values).
std::string substituteNames(std::string_view text,
                            const std::map<std::string, Expr> &replacements);

/// The definitions that CppForm::Helper output calls (function templates in
/// namespace ktune_expr, guarded by #ifndef KTUNE_EXPR_HELPERS so that a
/// translation unit may see them more than once), ending with a newline.
const std::string &cppHelpers();
/// True when `cpp` (toCpp output) calls a helper of cppHelpers().
bool usesCppHelpers(std::string_view cpp);

/// True when `name` is a valid C++ identifier and not a C++ keyword or a
/// reserved name (leading underscore + capital, double underscore).
bool isValidIdentifier(std::string_view name);

} // namespace ktune::expr

#endif
