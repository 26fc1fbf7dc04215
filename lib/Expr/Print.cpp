//===- Print.cpp - Canonical ktune text and C++ ---------------------------===//

#include "ExprInternal.h"

#include <climits>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::expr {

int binaryPrecedence(Op op) {
  switch (op) {
  case Op::Or:
    return 2;
  case Op::And:
    return 3;
  case Op::Lt:
  case Op::Le:
  case Op::Gt:
  case Op::Ge:
  case Op::Eq:
  case Op::Ne:
    return 5;
  case Op::Add:
  case Op::Sub:
    return 6;
  case Op::Pow:
    return 9;
  default:
    return 7;
  }
}

namespace {

bool isNegativeLiteral(const Node &n) {
  return (n.kind == Node::Kind::Int && n.intValue < 0) ||
         (n.kind == Node::Kind::Float && std::signbit(n.floatValue));
}

// Higher binds tighter.
int precedence(const Node &n) {
  // A negative literal (from substitute) reads back as unary minus.
  if (isNegativeLiteral(n))
    return 8;
  switch (n.kind) {
  case Node::Kind::Ternary:
    return 1;
  case Node::Kind::Binary:
    return binaryPrecedence(n.op);
  case Node::Kind::Compare:
    return 5;
  case Node::Kind::Unary:
    return n.op == Op::Not ? 8 : 8;
  default:
    return 10;
  }
}

const char *opText(Op op) {
  switch (op) {
  case Op::Add:
    return "+";
  case Op::Sub:
    return "-";
  case Op::Mul:
    return "*";
  case Op::Div:
    return "/";
  case Op::FloorDiv:
    return "//";
  case Op::Mod:
    return "%";
  case Op::Pow:
    return "**";
  case Op::Lt:
    return "<";
  case Op::Le:
    return "<=";
  case Op::Gt:
    return ">";
  case Op::Ge:
    return ">=";
  case Op::Eq:
    return "==";
  case Op::Ne:
    return "!=";
  case Op::And:
    return "&&";
  case Op::Or:
    return "||";
  case Op::Neg:
    return "-";
  case Op::Plus:
    return "+";
  case Op::Not:
    return "!";
  }
  return "?";
}

/// A float literal or a name: the same text in ktune and in C++.
std::string floatOrName(const Node &n) {
  return n.kind == Node::Kind::Float ? Value::ofFloat(n.floatValue).str()
                                     : n.name;
}

std::string printOperand(const Node &child, int parentPrecedence,
                         bool rightSide) {
  std::string text = printKtune(child);
  int p = precedence(child);
  if (p < parentPrecedence || (rightSide && p == parentPrecedence))
    return "(" + text + ")";
  return text;
}

} // namespace

std::string printKtune(const Node &n) {
  switch (n.kind) {
  case Node::Kind::Int:
    // -2^63 has no literal of its own.
    if (n.intValue == INT64_MIN)
      return "(-9223372036854775807 - 1)";
    return std::to_string(n.intValue);
  case Node::Kind::Float:
  case Node::Kind::Name:
    return floatOrName(n);
  case Node::Kind::Unary:
    return std::string(opText(n.op)) +
           printOperand(*n.operands[0], precedence(n), false);
  case Node::Kind::Binary: {
    int p = precedence(n);
    // '**' is right-associative, everything else left-associative.
    bool rightAssoc = n.op == Op::Pow;
    return printOperand(*n.operands[0], p, rightAssoc) + " " + opText(n.op) +
           " " + printOperand(*n.operands[1], p, !rightAssoc);
  }
  case Node::Kind::Compare: {
    std::string text = printOperand(*n.operands[0], 6, false);
    for (size_t k = 0; k < n.compareOps.size(); ++k)
      text += std::string(" ") + opText(n.compareOps[k]) + " " +
              printOperand(*n.operands[k + 1], 6, false);
    return text;
  }
  case Node::Kind::Ternary:
    return printOperand(*n.operands[0], 2, false) + " ? " +
           printKtune(*n.operands[1]) + " : " + printKtune(*n.operands[2]);
  case Node::Kind::Call: {
    std::string text = n.name + "(";
    for (size_t k = 0; k < n.operands.size(); ++k)
      text += (k ? ", " : "") + printKtune(*n.operands[k]);
    return text + ")";
  }
  }
  return "";
}

namespace {

/// An operand of a C++ form: its text, and whether it may be repeated
/// (a name or a literal) or used as an operand without parentheses.
struct CppOperand {
  std::string text;
  bool leaf = false;
  bool atom = false;
  std::string asOperand() const { return atom ? text : "(" + text + ")"; }
};

/// Lambda parameter names: a, b, c, ... (x26, x27, ... past z).
std::string parameterName(size_t k) {
  if (k < 26)
    return std::string(1, static_cast<char>('a' + k));
  std::string name = "x";
  return name.append(std::to_string(k));
}

/// `pattern` with $0, $1, ... (single digits, or $[12] past 9) replaced.
std::string fill(std::string_view pattern,
                 const std::vector<std::string> &values) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '$') {
      out += pattern[i];
      continue;
    }
    size_t k = 0;
    if (pattern[i + 1] == '[') {
      size_t close = pattern.find(']', i);
      k = std::stoul(std::string(pattern.substr(i + 2, close - i - 2)));
      i = close;
    } else {
      k = static_cast<size_t>(pattern[++i] - '0');
    }
    out += values[k];
  }
  return out;
}

std::string placeholder(size_t k) {
  std::string mark = k < 10 ? "$" : "$[";
  mark.append(std::to_string(k));
  return k < 10 ? mark : mark.append("]");
}

std::string joined(const std::vector<std::string> &list) {
  std::string out;
  for (const auto &item : list)
    out += (out.empty() ? "" : ", ") + item;
  return out;
}

class CppPrinter {
public:
  CppPrinter(Dialect lang, CppForm form) : Lang(lang), Form(form) {}

  // Every compound operand parenthesised, so no precedence subtleties.
  std::string print(const Node &n) const {
    auto operand = [&](size_t k) { return cppOperand(*n.operands[k]); };
    auto sub = [&](size_t k) { return operand(k).asOperand(); };
    switch (n.kind) {
    case Node::Kind::Int:
      if (n.intValue == INT64_MIN)
        return "-9223372036854775807LL - 1";
      if (n.intValue > INT32_MAX || n.intValue < INT32_MIN)
        return std::to_string(n.intValue) + "LL";
      return std::to_string(n.intValue);
    case Node::Kind::Float:
    case Node::Kind::Name:
      return floatOrName(n);
    case Node::Kind::Unary:
      return std::string(opText(n.op)) + sub(0);
    case Node::Kind::Binary:
      switch (n.op) {
      case Op::FloorDiv:
        return form("floor_div",
                    "$0 / $1 - (($0 % $1 != 0) && (($0 < 0) != ($1 < 0)))",
                    {operand(0), operand(1)})
            .text;
      case Op::Mod:
        if (Lang == Dialect::Python)
          return form("py_mod", "(($0 % $1) + $1) % $1",
                      {operand(0), operand(1)})
              .text;
        return sub(0) + " % " + sub(1);
      case Op::Div:
        if (Lang == Dialect::Python)
          return "(double(" + sub(0) + ") / double(" + sub(1) + "))";
        return sub(0) + " / " + sub(1);
      case Op::Pow:
        if (Form == CppForm::Helper)
          return "ktune_expr::pow(" + operand(0).text + ", " + operand(1).text +
                 ")";
        return "[](long long base, long long e) constexpr { long long r = 1; "
               "while (e-- > 0) r *= base; return r; }(" +
               operand(0).text + ", " + operand(1).text + ")";
      default:
        return sub(0) + " " + opText(n.op) + " " + sub(1);
      }
    case Node::Kind::Compare:
      return compare(n);
    case Node::Kind::Ternary:
      return sub(0) + " ? " + sub(1) + " : " + sub(2);
    case Node::Kind::Call: {
      if (n.name == "ceil_div")
        return form("ceil_div", "($0 + $1 - 1) / $1", {operand(0), operand(1)})
            .text;
      if (n.name == "abs")
        return form("abs_of", "$0 < 0 ? -$0 : $0", {operand(0)}).text;
      // min/max folded left, two operands at a time.
      bool isMin = n.name == "min";
      CppOperand acc = operand(0);
      for (size_t k = 1; k < n.operands.size(); ++k)
        acc = form(isMin ? "min_of" : "max_of",
                   isMin ? "$0 < $1 ? $0 : $1" : "$0 > $1 ? $0 : $1",
                   {acc, operand(k)});
      return acc.text;
    }
    }
    return "";
  }

private:
  CppOperand cppOperand(const Node &c) const {
    bool leaf = c.kind == Node::Kind::Int || c.kind == Node::Kind::Name ||
                c.kind == Node::Kind::Float;
    bool atom = (leaf && !isNegativeLiteral(c)) || c.kind == Node::Kind::Call;
    return {print(c), leaf, atom};
  }

  /// A C++ form that may use its operands several times, written so that
  /// its size stays linear: `pattern` with the operands in place when every
  /// operand it repeats is a name or a literal; otherwise the operands are
  /// bound once, as the parameters of an immediately invoked lambda
  /// (constexpr since C++17) or as the arguments of ktune_expr::`helper`:
  ///   (a / b - ...)                                       a, b leaves
  ///   [](auto a, auto b) { return a / b - ...; }(n * 2, b)  CppForm::Lambda
  ///   ktune_expr::floor_div(n * 2, b)                     CppForm::Helper
  CppOperand form(const std::string &helper, std::string_view pattern,
                  const std::vector<CppOperand> &operands) const {
    bool bind = false;
    for (size_t k = 0; k < operands.size(); ++k) {
      std::string mark = placeholder(k);
      size_t first = pattern.find(mark);
      bool repeated = first != std::string_view::npos &&
                      pattern.find(mark, first + 1) != std::string_view::npos;
      if (repeated && !operands[k].leaf)
        bind = true;
    }
    std::vector<std::string> args;
    for (const auto &o : operands)
      args.push_back(bind ? o.text : o.asOperand());
    if (!bind)
      return {"(" + fill(pattern, args) + ")", false, true};
    if (Form == CppForm::Helper)
      return {"ktune_expr::" + helper + "(" + joined(args) + ")", false, true};
    return {lambda(pattern, operands.size()) + "(" + joined(args) + ")", false,
            true};
  }

  static std::string lambda(std::string_view pattern, size_t arity) {
    std::vector<std::string> names, params;
    for (size_t k = 0; k < arity; ++k) {
      names.push_back(parameterName(k));
      params.push_back("auto " + names.back());
    }
    return "[](" + joined(params) + ") { return " + fill(pattern, names) +
           "; }";
  }

  /// a < b < c: (a < b) && (b < c), whose middle operands are used twice.
  std::string compare(const Node &n) const {
    std::string pattern;
    std::vector<CppOperand> operands;
    bool bind = false;
    for (size_t k = 0; k < n.operands.size(); ++k) {
      operands.push_back(cppOperand(*n.operands[k]));
      if (k > 0 && k + 1 < n.operands.size() && !operands.back().leaf)
        bind = true;
    }
    for (size_t k = 0; k < n.compareOps.size(); ++k) {
      std::string link = placeholder(k) + " " + opText(n.compareOps[k]) + " " +
                         placeholder(k + 1);
      if (n.compareOps.size() > 1)
        link = "(" + link + ")";
      pattern += (k ? " && " : "") + link;
    }
    std::vector<std::string> args;
    for (const auto &o : operands)
      args.push_back(bind ? o.text : o.asOperand());
    if (!bind)
      return fill(pattern, args);
    if (Form == CppForm::Lambda)
      return lambda(pattern, operands.size()) + "(" + joined(args) + ")";
    // ktune_expr::chain(a, "<", b, "<=", c)
    std::string call = "ktune_expr::chain(" + args[0];
    for (size_t k = 0; k < n.compareOps.size(); ++k)
      call +=
          std::string(", \"") + opText(n.compareOps[k]) + "\", " + args[k + 1];
    return call + ")";
  }

  Dialect Lang;
  CppForm Form;
};

} // namespace

std::string printCpp(const Node &n, Dialect lang, CppForm form) {
  return CppPrinter(lang, form).print(n);
}

const std::string &cppHelpers() {
  static const std::string text =
      R"(// Operations of ktune's expression language that use an operand more than
// once (for constraints whose operands are not plain names or numbers).
// Names end in _of so that min/max/abs macros cannot reach them.
#ifndef KTUNE_EXPR_HELPERS
#define KTUNE_EXPR_HELPERS
#if defined(__CUDACC__) || defined(__CUDA__)
#define KTUNE_EXPR_HD __host__ __device__
#else
#define KTUNE_EXPR_HD
#endif
namespace ktune_expr {
template <class A, class B> KTUNE_EXPR_HD constexpr auto floor_div(A a, B b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}
template <class A, class B> KTUNE_EXPR_HD constexpr auto py_mod(A a, B b) {
  return ((a % b) + b) % b;
}
template <class A, class B> KTUNE_EXPR_HD constexpr auto ceil_div(A a, B b) {
  return (a + b - 1) / b;
}
template <class A> KTUNE_EXPR_HD constexpr auto abs_of(A a) {
  return a < 0 ? -a : a;
}
template <class A, class B> KTUNE_EXPR_HD constexpr auto min_of(A a, B b) {
  return a < b ? a : b;
}
template <class A, class B> KTUNE_EXPR_HD constexpr auto max_of(A a, B b) {
  return a > b ? a : b;
}
KTUNE_EXPR_HD constexpr long long pow(long long base, long long e) {
  long long r = 1;
  while (e-- > 0)
    r *= base;
  return r;
}
template <class A, class B>
KTUNE_EXPR_HD constexpr bool compare(A a, const char *op, B b) {
  return op[0] == '<'   ? (op[1] == '=' ? a <= b : a < b)
         : op[0] == '>' ? (op[1] == '=' ? a >= b : a > b)
         : op[0] == '=' ? a == b
                        : a != b;
}
template <class A> KTUNE_EXPR_HD constexpr bool chain(A) { return true; }
template <class A, class B, class... Rest>
KTUNE_EXPR_HD constexpr bool chain(A a, const char *op, B b, Rest... rest) {
  return compare(a, op, b) && chain(b, rest...);
}
} // namespace ktune_expr
#endif
)";
  return text;
}

bool usesCppHelpers(std::string_view cpp) {
  return cpp.find("ktune_expr::") != std::string_view::npos;
}

std::string Expr::str() const { return printKtune(*Root); }
std::string Expr::toCpp(CppForm form) const {
  return printCpp(*Root, Lang, form);
}

} // namespace ktune::expr
