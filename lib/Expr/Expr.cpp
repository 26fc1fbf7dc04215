//===- Expr.cpp - Values, expressions, renaming ---------------------------===//

#include "ExprInternal.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

namespace ktune::expr {

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

std::string Value::str() const {
  if (isInt())
    return std::to_string(i);
  char buffer[32];
  for (int precision = 6; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof(buffer), "%.*g", precision, f);
    if (std::strtod(buffer, nullptr) == f)
      break;
  }
  std::string text = buffer;
  if (text.find_first_of(".eEn") == std::string::npos)
    text += ".0";
  return text;
}

std::optional<int64_t> Value::exactInt() const {
  if (isInt())
    return i;
  // [-2^63, 2^63) holds exactly the doubles that convert without undefined
  // behaviour; NaN fails both comparisons.
  if (!(f >= -9223372036854775808.0 && f < 9223372036854775808.0) ||
      f != std::trunc(f))
    return std::nullopt;
  return static_cast<int64_t>(f);
}

bool Value::operator==(const Value &other) const {
  if (isInt() && other.isInt())
    return i == other.i;
  return asDouble() == other.asDouble();
}

//===----------------------------------------------------------------------===//
// Expr
//===----------------------------------------------------------------------===//

std::string elide(std::string_view text, size_t limit) {
  if (text.size() <= limit)
    return std::string(text);
  return std::string(text.substr(0, limit)) + "...";
}

namespace {

void collectNames(const Node &n, std::vector<std::string> &out,
                  std::set<std::string> &seen) {
  if (n.kind == Node::Kind::Name && seen.insert(n.name).second)
    out.push_back(n.name);
  for (const auto &c : n.operands)
    collectNames(*c, out, seen);
}

} // namespace

Expr Expr::integer(int64_t value) {
  Node n;
  n.kind = Node::Kind::Int;
  n.intValue = value;
  n.column = 1;
  return Expr(std::make_shared<const Node>(std::move(n)), std::to_string(value),
              Dialect::Ktune);
}

std::vector<std::string> Expr::names() const {
  std::vector<std::string> out;
  std::set<std::string> seen;
  collectNames(*Root, out, seen);
  return out;
}

Expr Expr::substitute(const std::map<std::string, Expr> &replacements) const {
  NodePtr root = rewrite(Root, [&](const Node &n) -> NodePtr {
    if (n.kind != Node::Kind::Name)
      return nullptr;
    auto it = replacements.find(n.name);
    return it == replacements.end() ? nullptr : it->second.Root;
  });
  Expr result(root, "", Lang);
  result.Source = result.str();
  return result;
}

std::optional<int64_t> Expr::asIntegerLiteral() const {
  const Node *n = Root.get();
  bool negate = false;
  while (n->kind == Node::Kind::Unary &&
         (n->op == Op::Neg || n->op == Op::Plus)) {
    negate ^= n->op == Op::Neg;
    n = n->operands[0].get();
  }
  if (n->kind != Node::Kind::Int || (negate && n->intValue == INT64_MIN))
    return std::nullopt;
  return negate ? -n->intValue : n->intValue;
}

Expr Expr::rename(const std::map<std::string, std::string> &renames) const {
  NodePtr root = rewrite(Root, [&](const Node &n) -> NodePtr {
    if (n.kind != Node::Kind::Name)
      return nullptr;
    auto it = renames.find(n.name);
    if (it == renames.end() || it->second == n.name)
      return nullptr;
    Node copy = n;
    copy.name = it->second;
    return std::make_shared<const Node>(std::move(copy));
  });
  Expr result(root, "", Lang);
  result.Source = result.str();
  return result;
}

namespace {

/// The text with `replace` applied, or the text itself when it does not
/// parse or mentions none of the names `replaces` says it changes.
template <class Replaces, class Replace>
std::string rewriteText(std::string_view text, const Replaces &replaces,
                        const Replace &replace) {
  auto e = Expr::parse(text);
  if (!e)
    return std::string(text);
  auto names = e->names();
  if (std::none_of(names.begin(), names.end(), replaces))
    return std::string(text);
  return replace(*e).str();
}

} // namespace

std::string
renameIdentifiers(std::string_view text,
                  const std::map<std::string, std::string> &renames) {
  return rewriteText(
      text,
      [&](const std::string &name) {
        auto it = renames.find(name);
        return it != renames.end() && it->second != name;
      },
      [&](const Expr &e) { return e.rename(renames); });
}

std::string substituteNames(std::string_view text,
                            const std::map<std::string, Expr> &replacements) {
  return rewriteText(
      text,
      [&](const std::string &name) { return replacements.count(name) != 0; },
      [&](const Expr &e) { return e.substitute(replacements); });
}

bool isValidIdentifier(std::string_view name) {
  if (name.empty() || name.size() > 128)
    return false;
  if (!(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_'))
    return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_'))
      return false;
  if (name.find("__") != std::string_view::npos)
    return false;
  if (name[0] == '_' && name.size() > 1 &&
      std::isupper(static_cast<unsigned char>(name[1])))
    return false;
  static const std::set<std::string_view> reserved = {
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor",
      "bool", "break", "case", "catch", "char", "char8_t", "char16_t",
      "char32_t", "class", "compl", "concept", "const", "consteval",
      "constexpr", "constinit", "const_cast", "continue", "co_await",
      "co_return", "co_yield", "decltype", "default", "delete", "do", "double",
      "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false",
      "float", "for", "friend", "goto", "if", "inline", "int", "long",
      "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr",
      "operator", "or", "or_eq", "private", "protected", "public", "register",
      "reinterpret_cast", "requires", "return", "short", "signed", "sizeof",
      "static", "static_assert", "static_cast", "struct", "switch", "template",
      "this", "thread_local", "throw", "true", "try", "typedef", "typeid",
      "typename", "union", "unsigned", "using", "virtual", "void", "volatile",
      "wchar_t", "while", "xor", "xor_eq", "True", "False",
      // names the expression language and CUDA reserve
      "min", "max", "ceil_div", "abs", "threadIdx", "blockIdx", "blockDim",
      "gridDim", "warpSize", "dim3"};
  return !reserved.count(name);
}

} // namespace ktune::expr
