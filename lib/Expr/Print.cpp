//===- Print.cpp - Canonical ktune text and C++ ---------------------------===//

#include "ExprInternal.h"

#include <climits>
#include <cstdint>

namespace ktune::expr {

namespace {

// Higher binds tighter.
int precedence(const Node &n) {
  switch (n.kind) {
  case Node::Kind::Ternary: return 1;
  case Node::Kind::Binary:
    switch (n.op) {
    case Op::Or: return 2;
    case Op::And: return 3;
    case Op::Add:
    case Op::Sub: return 6;
    case Op::Pow: return 9;
    default: return 7;
    }
  case Node::Kind::Compare: return 5;
  case Node::Kind::Unary: return n.op == Op::Not ? 8 : 8;
  default: return 10;
  }
}

const char *opText(Op op) {
  switch (op) {
  case Op::Add: return "+";
  case Op::Sub: return "-";
  case Op::Mul: return "*";
  case Op::Div: return "/";
  case Op::FloorDiv: return "//";
  case Op::Mod: return "%";
  case Op::Pow: return "**";
  case Op::Lt: return "<";
  case Op::Le: return "<=";
  case Op::Gt: return ">";
  case Op::Ge: return ">=";
  case Op::Eq: return "==";
  case Op::Ne: return "!=";
  case Op::And: return "&&";
  case Op::Or: return "||";
  case Op::Neg: return "-";
  case Op::Plus: return "+";
  case Op::Not: return "!";
  }
  return "?";
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
    return std::to_string(n.intValue);
  case Node::Kind::Float:
    return Value::ofFloat(n.floatValue).str();
  case Node::Kind::Name:
    return n.name;
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

// C++: every compound operand parenthesised, so no precedence subtleties.
std::string printCpp(const Node &n, Dialect lang) {
  auto sub = [&](size_t k) {
    const Node &c = *n.operands[k];
    std::string text = printCpp(c, lang);
    bool atom = c.kind == Node::Kind::Int || c.kind == Node::Kind::Name ||
                c.kind == Node::Kind::Float || c.kind == Node::Kind::Call;
    return atom ? text : "(" + text + ")";
  };
  switch (n.kind) {
  case Node::Kind::Int:
    if (n.intValue > INT32_MAX || n.intValue < INT32_MIN)
      return std::to_string(n.intValue) + "LL";
    return std::to_string(n.intValue);
  case Node::Kind::Float:
    return Value::ofFloat(n.floatValue).str();
  case Node::Kind::Name:
    return n.name;
  case Node::Kind::Unary:
    return std::string(opText(n.op)) + sub(0);
  case Node::Kind::Binary: {
    std::string a = sub(0), b = sub(1);
    switch (n.op) {
    case Op::FloorDiv:
      return "(" + a + " / " + b + " - ((" + a + " % " + b + " != 0) && ((" +
             a + " < 0) != (" + b + " < 0))))";
    case Op::Mod:
      if (lang == Dialect::Python)
        return "(((" + a + " % " + b + ") + " + b + ") % " + b + ")";
      return a + " % " + b;
    case Op::Div:
      if (lang == Dialect::Python)
        return "(double(" + a + ") / double(" + b + "))";
      return a + " / " + b;
    case Op::Pow:
      return "[](long long base, long long e) constexpr { long long r = 1; "
             "while (e-- > 0) r *= base; return r; }(" +
             a + ", " + b + ")";
    default:
      return a + " " + opText(n.op) + " " + b;
    }
  }
  case Node::Kind::Compare: {
    std::string text;
    for (size_t k = 0; k < n.compareOps.size(); ++k) {
      std::string link = sub(k) + " " + opText(n.compareOps[k]) + " " +
                         sub(k + 1);
      text += k ? " && (" + link + ")" : "(" + link + ")";
    }
    return n.compareOps.size() == 1 ? text.substr(1, text.size() - 2) : text;
  }
  case Node::Kind::Ternary:
    return sub(0) + " ? " + sub(1) + " : " + sub(2);
  case Node::Kind::Call: {
    if (n.name == "ceil_div") {
      std::string a = sub(0), b = sub(1);
      return "((" + a + " + " + b + " - 1) / " + b + ")";
    }
    if (n.name == "abs") {
      std::string a = sub(0);
      return "(" + a + " < 0 ? -" + a + " : " + a + ")";
    }
    // min/max folded left as nested conditionals.
    std::string acc = sub(0);
    const char *cmp = n.name == "min" ? " < " : " > ";
    for (size_t k = 1; k < n.operands.size(); ++k) {
      std::string b = sub(k);
      acc = "(" + acc + cmp + b + " ? " + acc + " : " + b + ")";
    }
    return acc;
  }
  }
  return "";
}

std::string Expr::str() const { return printKtune(*Root); }
std::string Expr::toCpp() const { return printCpp(*Root, Lang); }

} // namespace ktune::expr
