//===- ExprInternal.h - The tree shared by parser, evaluator, printers ---===//
//
// Private to lib/Expr: an Expr is an immutable tree of Nodes, built by the
// parser (Parse.cpp), walked by the evaluator (Evaluate.cpp) and the
// printers (Print.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_LIB_EXPR_EXPRINTERNAL_H
#define KTUNE_LIB_EXPR_EXPRINTERNAL_H

#include "ktune/Expr/Expr.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace ktune::expr {

enum class Op {
  Add,
  Sub,
  Mul,
  Div,
  FloorDiv,
  Mod,
  Pow, // arithmetic
  Lt,
  Le,
  Gt,
  Ge,
  Eq,
  Ne, // comparisons
  And,
  Or, // logic
  Neg,
  Plus,
  Not, // unary
};

struct Node {
  enum class Kind { Int, Float, Name, Unary, Binary, Compare, Ternary, Call };
  Kind kind = Kind::Int;
  int column = 0;
  /// 1 for a leaf, else 1 + the deepest operand's depth.
  int depth = 1;
  int64_t intValue = 0;
  double floatValue = 0.0;
  std::string name;           // Name, Call
  int slot = -1;              // Name, after bind()
  Op op = Op::Add;            // Unary, Binary
  std::vector<Op> compareOps; // Compare: one per link
  std::vector<std::shared_ptr<const Node>> operands;
};

using NodePtr = std::shared_ptr<const Node>;

/// How tightly a binary operator binds, higher tighter: or 2, and 3,
/// comparisons 5, + - 6, * / // % 7, ** 9 (on the printer's scale, where ?:
/// is 1 and a unary operator 8). The parser's grammar follows it.
int binaryPrecedence(Op op);

/// "col 7: ", the prefix of every parse and evaluation error.
inline std::string columnPrefix(int column) {
  return "col " + std::to_string(column) + ": ";
}

/// 1 + the deepest operand's depth (1 for a leaf).
inline int depthOf(const Node &n) {
  int depth = 0;
  for (const auto &c : n.operands)
    depth = std::max(depth, c->depth);
  return depth + 1;
}

/// `text` cut to about `limit` characters with "..." (for error messages).
std::string elide(std::string_view text, size_t limit = 80);

/// Parses `text` into a tree (lexer and recursive-descent parser).
Expected<NodePtr> parseTree(std::string_view text, Dialect dialect);

/// Canonical ktune text (minimal parentheses).
std::string printKtune(const Node &n);
/// An equivalent C++ expression in the semantics of `lang`.
std::string printCpp(const Node &n, Dialect lang, CppForm form);

/// A copy of the tree where `fn` replaced nodes (a non-null result); the
/// subtrees it leaves alone are shared, not copied.
template <class Fn> NodePtr rewrite(const NodePtr &n, const Fn &fn) {
  if (NodePtr replaced = fn(*n))
    return replaced;
  if (n->operands.empty())
    return n;
  Node copy = *n;
  for (auto &c : copy.operands)
    c = rewrite(c, fn);
  copy.depth = depthOf(copy);
  return std::make_shared<const Node>(std::move(copy));
}

} // namespace ktune::expr

#endif
