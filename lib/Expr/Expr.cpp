//===- Expr.cpp - Parser, evaluator and printers of the language ----------===//

#include "ktune/Expr/Expr.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <charconv>
#include <cmath>
#include <cstdio>
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

bool Value::operator==(const Value &other) const {
  if (isInt() && other.isInt())
    return i == other.i;
  return asDouble() == other.asDouble();
}

//===----------------------------------------------------------------------===//
// Tree
//===----------------------------------------------------------------------===//

enum class Op {
  Add, Sub, Mul, Div, FloorDiv, Mod, Pow, // arithmetic
  Lt, Le, Gt, Ge, Eq, Ne,                 // comparisons
  And, Or,                                // logic
  Neg, Plus, Not,                         // unary
};

struct Node {
  enum class Kind { Int, Float, Name, Unary, Binary, Compare, Ternary, Call };
  Kind kind = Kind::Int;
  int column = 0;
  int64_t intValue = 0;
  double floatValue = 0.0;
  std::string name;                          // Name, Call
  int slot = -1;                             // Name, after bind()
  Op op = Op::Add;                           // Unary, Binary
  std::vector<Op> compareOps;                // Compare: one per link
  std::vector<std::shared_ptr<const Node>> operands;
};

using NodePtr = std::shared_ptr<const Node>;

namespace {

//===----------------------------------------------------------------------===//
// Lexer
//===----------------------------------------------------------------------===//

enum class Tok {
  End, Int, Float, Name, LParen, RParen, Comma, Question, Colon,
  Plus, Minus, Star, Slash, SlashSlash, Percent, StarStar,
  Lt, Le, Gt, Ge, EqEq, Ne, AndAnd, OrOr, Bang,
  KwAnd, KwOr, KwNot, KwTrue, KwFalse,
};

struct Token {
  Tok kind = Tok::End;
  int column = 0;
  std::string text;
  int64_t intValue = 0;
  double floatValue = 0.0;
};

std::string columnPrefix(int column) {
  return "col " + std::to_string(column) + ": ";
}

Expected<std::vector<Token>> lex(std::string_view s) {
  std::vector<Token> tokens;
  size_t i = 0;
  auto isIdentStart = [](char c) {
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
  };
  auto isIdent = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  };
  while (i < s.size()) {
    char c = s[i];
    int column = static_cast<int>(i) + 1;
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    Token t;
    t.column = column;
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && i + 1 < s.size() &&
         std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      size_t start = i;
      bool isFloat = false;
      while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) ||
                              s[i] == '_'))
        ++i;
      if (i < s.size() && s[i] == '.') {
        isFloat = true;
        ++i;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])))
          ++i;
      }
      if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        size_t save = i;
        ++i;
        if (i < s.size() && (s[i] == '+' || s[i] == '-'))
          ++i;
        if (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
          isFloat = true;
          while (i < s.size() &&
                 std::isdigit(static_cast<unsigned char>(s[i])))
            ++i;
        } else {
          i = save;
        }
      }
      std::string text(s.substr(start, i - start));
      text.erase(std::remove(text.begin(), text.end(), '_'), text.end());
      if (i < s.size() && isIdent(s[i]))
        return makeError(columnPrefix(column) + "malformed number '" +
                         std::string(s.substr(start, i - start + 1)) + "'");
      t.text = text;
      if (isFloat) {
        t.kind = Tok::Float;
        t.floatValue = std::strtod(text.c_str(), nullptr);
      } else {
        t.kind = Tok::Int;
        auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(),
                                         t.intValue);
        if (ec != std::errc())
          return makeError(columnPrefix(column) + "integer literal '" + text +
                           "' is out of range");
      }
      tokens.push_back(std::move(t));
      continue;
    }
    if (isIdentStart(c)) {
      size_t start = i;
      while (i < s.size() && isIdent(s[i]))
        ++i;
      t.text = std::string(s.substr(start, i - start));
      if (t.text == "and")
        t.kind = Tok::KwAnd;
      else if (t.text == "or")
        t.kind = Tok::KwOr;
      else if (t.text == "not")
        t.kind = Tok::KwNot;
      else if (t.text == "True" || t.text == "true")
        t.kind = Tok::KwTrue;
      else if (t.text == "False" || t.text == "false")
        t.kind = Tok::KwFalse;
      else
        t.kind = Tok::Name;
      tokens.push_back(std::move(t));
      continue;
    }
    auto two = s.substr(i, 2);
    struct Punct {
      std::string_view text;
      Tok kind;
    };
    static const Punct puncts[] = {
        {"**", Tok::StarStar}, {"//", Tok::SlashSlash}, {"<=", Tok::Le},
        {">=", Tok::Ge},       {"==", Tok::EqEq},       {"!=", Tok::Ne},
        {"&&", Tok::AndAnd},   {"||", Tok::OrOr},       {"(", Tok::LParen},
        {")", Tok::RParen},    {",", Tok::Comma},       {"?", Tok::Question},
        {":", Tok::Colon},     {"+", Tok::Plus},        {"-", Tok::Minus},
        {"*", Tok::Star},      {"/", Tok::Slash},       {"%", Tok::Percent},
        {"<", Tok::Lt},        {">", Tok::Gt},          {"!", Tok::Bang},
    };
    bool matched = false;
    for (const auto &p : puncts) {
      if (s.substr(i, p.text.size()) == p.text) {
        t.kind = p.kind;
        t.text = std::string(p.text);
        i += p.text.size();
        matched = true;
        break;
      }
    }
    (void)two;
    if (!matched)
      return makeError(columnPrefix(column) + "unexpected character '" +
                       std::string(1, c) + "'");
    tokens.push_back(std::move(t));
  }
  Token end;
  end.kind = Tok::End;
  end.column = static_cast<int>(s.size()) + 1;
  tokens.push_back(end);
  return tokens;
}

//===----------------------------------------------------------------------===//
// Parser (recursive descent; precedence from low to high:
//   ?:  or  and  not  comparisons  + -  * / // %  unary - + !  **)
//===----------------------------------------------------------------------===//

const std::set<std::string> &knownFunctions() {
  static const std::set<std::string> functions = {"min", "max", "ceil_div",
                                                  "abs"};
  return functions;
}

class Parser {
public:
  Parser(std::vector<Token> tokens, Dialect dialect)
      : Tokens(std::move(tokens)), Lang(dialect) {}

  Expected<NodePtr> parseAll() {
    auto root = parseTernary();
    if (!root)
      return root;
    if (peek().kind != Tok::End)
      return unexpected();
    return root;
  }

private:
  const Token &peek() const { return Tokens[Pos]; }
  const Token &take() { return Tokens[Pos++]; }
  bool accept(Tok kind) {
    if (peek().kind != kind)
      return false;
    ++Pos;
    return true;
  }
  std::unexpected<Error> unexpected() const {
    const Token &t = peek();
    if (t.kind == Tok::End)
      return makeError(columnPrefix(t.column) + "unexpected end of expression");
    return makeError(columnPrefix(t.column) + "unexpected '" + t.text + "'");
  }

  static NodePtr makeNode(Node n) {
    return std::make_shared<const Node>(std::move(n));
  }
  static NodePtr makeUnary(Op op, NodePtr operand, int column) {
    Node n;
    n.kind = Node::Kind::Unary;
    n.op = op;
    n.column = column;
    n.operands = {std::move(operand)};
    return makeNode(std::move(n));
  }
  static NodePtr makeBinary(Op op, NodePtr lhs, NodePtr rhs, int column) {
    Node n;
    n.kind = Node::Kind::Binary;
    n.op = op;
    n.column = column;
    n.operands = {std::move(lhs), std::move(rhs)};
    return makeNode(std::move(n));
  }

  Expected<NodePtr> parseTernary() {
    auto cond = parseOr();
    if (!cond)
      return cond;
    if (peek().kind != Tok::Question)
      return cond;
    int column = take().column;
    if (Lang == Dialect::Python)
      return makeError(columnPrefix(column) +
                       "'?:' is not part of the Python dialect");
    auto then = parseTernary();
    if (!then)
      return then;
    if (!accept(Tok::Colon))
      return unexpected();
    auto otherwise = parseTernary();
    if (!otherwise)
      return otherwise;
    Node n;
    n.kind = Node::Kind::Ternary;
    n.column = column;
    n.operands = {*cond, *then, *otherwise};
    return makeNode(std::move(n));
  }

  Expected<NodePtr> parseOr() {
    auto lhs = parseAnd();
    if (!lhs)
      return lhs;
    while (peek().kind == Tok::KwOr || peek().kind == Tok::OrOr) {
      int column = take().column;
      auto rhs = parseAnd();
      if (!rhs)
        return rhs;
      lhs = makeBinary(Op::Or, *lhs, *rhs, column);
    }
    return lhs;
  }

  Expected<NodePtr> parseAnd() {
    auto lhs = parseNot();
    if (!lhs)
      return lhs;
    while (peek().kind == Tok::KwAnd || peek().kind == Tok::AndAnd) {
      int column = take().column;
      auto rhs = parseNot();
      if (!rhs)
        return rhs;
      lhs = makeBinary(Op::And, *lhs, *rhs, column);
    }
    return lhs;
  }

  // Python's `not` binds looser than comparisons; C's `!` is unary (below).
  Expected<NodePtr> parseNot() {
    if (peek().kind == Tok::KwNot) {
      int column = take().column;
      auto operand = parseNot();
      if (!operand)
        return operand;
      return makeUnary(Op::Not, *operand, column);
    }
    return parseComparison();
  }

  static std::optional<Op> comparisonOp(Tok kind) {
    switch (kind) {
    case Tok::Lt: return Op::Lt;
    case Tok::Le: return Op::Le;
    case Tok::Gt: return Op::Gt;
    case Tok::Ge: return Op::Ge;
    case Tok::EqEq: return Op::Eq;
    case Tok::Ne: return Op::Ne;
    default: return std::nullopt;
    }
  }

  // Chains read as in Python: a < b < c means a < b and b < c.
  Expected<NodePtr> parseComparison() {
    auto first = parseAdditive();
    if (!first)
      return first;
    auto op = comparisonOp(peek().kind);
    if (!op)
      return first;
    Node n;
    n.kind = Node::Kind::Compare;
    n.column = peek().column;
    n.operands.push_back(*first);
    while ((op = comparisonOp(peek().kind))) {
      take();
      auto next = parseAdditive();
      if (!next)
        return next;
      n.compareOps.push_back(*op);
      n.operands.push_back(*next);
    }
    return makeNode(std::move(n));
  }

  Expected<NodePtr> parseAdditive() {
    auto lhs = parseMultiplicative();
    if (!lhs)
      return lhs;
    while (peek().kind == Tok::Plus || peek().kind == Tok::Minus) {
      const Token &t = take();
      Op op = t.kind == Tok::Plus ? Op::Add : Op::Sub;
      auto rhs = parseMultiplicative();
      if (!rhs)
        return rhs;
      lhs = makeBinary(op, *lhs, *rhs, t.column);
    }
    return lhs;
  }

  Expected<NodePtr> parseMultiplicative() {
    auto lhs = parseUnary();
    if (!lhs)
      return lhs;
    while (true) {
      Op op;
      switch (peek().kind) {
      case Tok::Star: op = Op::Mul; break;
      case Tok::Slash: op = Op::Div; break;
      case Tok::SlashSlash: op = Op::FloorDiv; break;
      case Tok::Percent: op = Op::Mod; break;
      default: return lhs;
      }
      int column = take().column;
      auto rhs = parseUnary();
      if (!rhs)
        return rhs;
      lhs = makeBinary(op, *lhs, *rhs, column);
    }
  }

  Expected<NodePtr> parseUnary() {
    const Token &t = peek();
    if (t.kind == Tok::Minus || t.kind == Tok::Plus || t.kind == Tok::Bang) {
      take();
      Op op = t.kind == Tok::Minus ? Op::Neg
              : t.kind == Tok::Plus ? Op::Plus
                                    : Op::Not;
      auto operand = parseUnary();
      if (!operand)
        return operand;
      return makeUnary(op, *operand, t.column);
    }
    return parsePower();
  }

  Expected<NodePtr> parsePower() {
    auto base = parsePrimary();
    if (!base)
      return base;
    if (peek().kind != Tok::StarStar)
      return base;
    int column = take().column;
    if (Lang != Dialect::Python)
      return makeError(columnPrefix(column) +
                       "'**' is only part of the Python dialect");
    auto exponent = parseUnary();
    if (!exponent)
      return exponent;
    return makeBinary(Op::Pow, *base, *exponent, column);
  }

  Expected<NodePtr> parsePrimary() {
    const Token &t = take();
    switch (t.kind) {
    case Tok::Int: {
      Node n;
    n.kind = Node::Kind::Int;
      n.column = t.column;
      n.intValue = t.intValue;
      return makeNode(std::move(n));
    }
    case Tok::Float: {
      Node n;
    n.kind = Node::Kind::Float;
      n.column = t.column;
      n.floatValue = t.floatValue;
      return makeNode(std::move(n));
    }
    case Tok::KwTrue:
    case Tok::KwFalse: {
      Node n;
    n.kind = Node::Kind::Int;
      n.column = t.column;
      n.intValue = t.kind == Tok::KwTrue ? 1 : 0;
      return makeNode(std::move(n));
    }
    case Tok::LParen: {
      auto inner = parseTernary();
      if (!inner)
        return inner;
      if (!accept(Tok::RParen))
        return unexpected();
      return inner;
    }
    case Tok::Name: {
      if (peek().kind != Tok::LParen) {
        Node n;
    n.kind = Node::Kind::Name;
        n.column = t.column;
        n.name = t.text;
        return makeNode(std::move(n));
      }
      if (!knownFunctions().count(t.text))
        return makeError(columnPrefix(t.column) + "unknown function '" +
                         t.text + "' (known: min, max, ceil_div, abs)");
      take(); // '('
      Node n;
    n.kind = Node::Kind::Call;
      n.column = t.column;
      n.name = t.text;
      if (peek().kind != Tok::RParen) {
        while (true) {
          auto arg = parseTernary();
          if (!arg)
            return arg;
          n.operands.push_back(*arg);
          if (!accept(Tok::Comma))
            break;
        }
      }
      if (!accept(Tok::RParen))
        return unexpected();
      size_t arity = n.operands.size();
      bool ok = (n.name == "min" || n.name == "max") ? arity >= 1
                : n.name == "abs"                     ? arity == 1
                                                      : arity == 2;
      if (!ok)
        return makeError(columnPrefix(t.column) + "wrong number of arguments (" +
                         std::to_string(arity) + ") for '" + n.name + "'");
      return makeNode(std::move(n));
    }
    default:
      --Pos;
      return unexpected();
    }
  }

  std::vector<Token> Tokens;
  size_t Pos = 0;
  Dialect Lang;
};

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    --q;
  return q;
}

int64_t floorMod(int64_t a, int64_t b) { return a - floorDiv(a, b) * b; }

template <class Lookup> class Evaluator {
public:
  Evaluator(const Lookup &lookup, Dialect dialect)
      : Find(lookup), Lang(dialect) {}

  Expected<Value> eval(const Node &n) const {
    switch (n.kind) {
    case Node::Kind::Int:
      return Value::ofInt(n.intValue);
    case Node::Kind::Float:
      return Value::ofFloat(n.floatValue);
    case Node::Kind::Name: {
      std::optional<Value> v = Find(n);
      if (!v)
        return makeError(columnPrefix(n.column) + "unknown name '" + n.name +
                         "'");
      return *v;
    }
    case Node::Kind::Unary: {
      auto v = eval(*n.operands[0]);
      if (!v)
        return v;
      switch (n.op) {
      case Op::Neg:
        if (v->isInt()) {
          if (v->i == INT64_MIN)
            return overflow(n);
          return Value::ofInt(-v->i);
        }
        return Value::ofFloat(-v->f);
      case Op::Plus:
        return *v;
      default:
        return Value::ofBool(!v->truthy());
      }
    }
    case Node::Kind::Binary:
      return evalBinary(n);
    case Node::Kind::Compare: {
      auto lhs = eval(*n.operands[0]);
      if (!lhs)
        return lhs;
      for (size_t k = 0; k < n.compareOps.size(); ++k) {
        auto rhs = eval(*n.operands[k + 1]);
        if (!rhs)
          return rhs;
        if (!compare(n.compareOps[k], *lhs, *rhs))
          return Value::ofBool(false);
        lhs = rhs;
      }
      return Value::ofBool(true);
    }
    case Node::Kind::Ternary: {
      auto c = eval(*n.operands[0]);
      if (!c)
        return c;
      return eval(*n.operands[c->truthy() ? 1 : 2]);
    }
    case Node::Kind::Call:
      return evalCall(n);
    }
    return makeError("internal error: unknown node");
  }

private:
  static std::unexpected<Error> overflow(const Node &n) {
    return makeError(columnPrefix(n.column) + "integer overflow");
  }

  static bool compare(Op op, const Value &a, const Value &b) {
    if (a.isInt() && b.isInt()) {
      switch (op) {
      case Op::Lt: return a.i < b.i;
      case Op::Le: return a.i <= b.i;
      case Op::Gt: return a.i > b.i;
      case Op::Ge: return a.i >= b.i;
      case Op::Eq: return a.i == b.i;
      default: return a.i != b.i;
      }
    }
    double x = a.asDouble(), y = b.asDouble();
    switch (op) {
    case Op::Lt: return x < y;
    case Op::Le: return x <= y;
    case Op::Gt: return x > y;
    case Op::Ge: return x >= y;
    case Op::Eq: return x == y;
    default: return x != y;
    }
  }

  Expected<Value> evalBinary(const Node &n) const {
    auto lhs = eval(*n.operands[0]);
    if (!lhs)
      return lhs;
    if (n.op == Op::And && !lhs->truthy())
      return Value::ofBool(false);
    if (n.op == Op::Or && lhs->truthy())
      return Value::ofBool(true);
    auto rhs = eval(*n.operands[1]);
    if (!rhs)
      return rhs;
    if (n.op == Op::And || n.op == Op::Or)
      return Value::ofBool(rhs->truthy());

    bool ints = lhs->isInt() && rhs->isInt();
    if (ints) {
      int64_t a = lhs->i, b = rhs->i, r = 0;
      switch (n.op) {
      case Op::Add:
        if (__builtin_add_overflow(a, b, &r))
          return overflow(n);
        return Value::ofInt(r);
      case Op::Sub:
        if (__builtin_sub_overflow(a, b, &r))
          return overflow(n);
        return Value::ofInt(r);
      case Op::Mul:
        if (__builtin_mul_overflow(a, b, &r))
          return overflow(n);
        return Value::ofInt(r);
      case Op::Div:
        if (Lang == Dialect::Python)
          break; // true division, below
        [[fallthrough]];
      case Op::FloorDiv:
      case Op::Mod:
        if (b == 0)
          return makeError(columnPrefix(n.column) + "division by zero");
        if (a == INT64_MIN && b == -1)
          return overflow(n);
        if (n.op == Op::Div)
          return Value::ofInt(a / b);
        if (n.op == Op::FloorDiv)
          return Value::ofInt(floorDiv(a, b));
        return Value::ofInt(Lang == Dialect::Python ? floorMod(a, b) : a % b);
      case Op::Pow: {
        if (b < 0)
          return Value::ofFloat(std::pow(static_cast<double>(a),
                                         static_cast<double>(b)));
        int64_t result = 1;
        for (int64_t k = 0; k < b; ++k) {
          if (__builtin_mul_overflow(result, a, &result))
            return overflow(n);
          if (result == 0 || result == 1)
            break;
        }
        return Value::ofInt(result);
      }
      default:
        break;
      }
    }
    double x = lhs->asDouble(), y = rhs->asDouble();
    switch (n.op) {
    case Op::Add: return Value::ofFloat(x + y);
    case Op::Sub: return Value::ofFloat(x - y);
    case Op::Mul: return Value::ofFloat(x * y);
    case Op::Div:
      if (y == 0)
        return makeError(columnPrefix(n.column) + "division by zero");
      return Value::ofFloat(x / y);
    case Op::FloorDiv:
      if (y == 0)
        return makeError(columnPrefix(n.column) + "division by zero");
      return Value::ofFloat(std::floor(x / y));
    case Op::Mod:
      if (y == 0)
        return makeError(columnPrefix(n.column) + "division by zero");
      return Value::ofFloat(Lang == Dialect::Python
                                ? x - std::floor(x / y) * y
                                : std::fmod(x, y));
    case Op::Pow: return Value::ofFloat(std::pow(x, y));
    default:
      return makeError("internal error: unknown operator");
    }
  }

  Expected<Value> evalCall(const Node &n) const {
    std::vector<Value> args;
    for (const auto &operand : n.operands) {
      auto v = eval(*operand);
      if (!v)
        return v;
      args.push_back(*v);
    }
    if (n.name == "min" || n.name == "max") {
      Value best = args[0];
      for (size_t k = 1; k < args.size(); ++k) {
        bool less = compare(Op::Lt, args[k], best);
        if (n.name == "min" ? less : compare(Op::Gt, args[k], best))
          best = args[k];
      }
      return best;
    }
    if (n.name == "abs") {
      if (args[0].isInt()) {
        if (args[0].i == INT64_MIN)
          return overflow(n);
        return Value::ofInt(args[0].i < 0 ? -args[0].i : args[0].i);
      }
      return Value::ofFloat(std::fabs(args[0].f));
    }
    // ceil_div
    if (!args[0].isInt() || !args[1].isInt())
      return makeError(columnPrefix(n.column) +
                       "ceil_div takes integer arguments");
    if (args[1].i == 0)
      return makeError(columnPrefix(n.column) + "division by zero");
    return Value::ofInt(-floorDiv(-args[0].i, args[1].i));
  }

  const Lookup &Find;
  Dialect Lang;
};

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

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

std::string printKtune(const Node &n);

std::string printOperand(const Node &child, int parentPrecedence,
                         bool rightSide) {
  std::string text = printKtune(child);
  int p = precedence(child);
  if (p < parentPrecedence || (rightSide && p == parentPrecedence))
    return "(" + text + ")";
  return text;
}

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

void collectNames(const Node &n, std::vector<std::string> &out,
                  std::set<std::string> &seen) {
  if (n.kind == Node::Kind::Name && seen.insert(n.name).second)
    out.push_back(n.name);
  for (const auto &c : n.operands)
    collectNames(*c, out, seen);
}

template <class Fn> NodePtr rewrite(const NodePtr &n, const Fn &fn) {
  if (NodePtr replaced = fn(*n))
    return replaced;
  if (n->operands.empty())
    return n;
  Node copy = *n;
  for (auto &c : copy.operands)
    c = rewrite(c, fn);
  return std::make_shared<const Node>(std::move(copy));
}

} // namespace

//===----------------------------------------------------------------------===//
// Expr
//===----------------------------------------------------------------------===//

Expected<Expr> Expr::parse(std::string_view text, Dialect dialect) {
  auto tokens = lex(text);
  if (!tokens)
    return std::unexpected(tokens.error());
  Parser parser(std::move(*tokens), dialect);
  auto root = parser.parseAll();
  if (!root)
    return std::unexpected(root.error());
  return Expr(std::move(*root), std::string(text), dialect);
}

Expr Expr::integer(int64_t value) {
  Node n;
    n.kind = Node::Kind::Int;
  n.intValue = value;
  n.column = 1;
  return Expr(std::make_shared<const Node>(std::move(n)),
              std::to_string(value), Dialect::Ktune);
}

std::string Expr::str() const { return printKtune(*Root); }
std::string Expr::toCpp() const { return printCpp(*Root, Lang); }

std::vector<std::string> Expr::names() const {
  std::vector<std::string> out;
  std::set<std::string> seen;
  collectNames(*Root, out, seen);
  return out;
}

Expected<Value> Expr::evaluate(const NameLookup &lookup) const {
  auto find = [&](const Node &n) { return lookup(n.name); };
  return Evaluator<decltype(find)>(find, Lang).eval(*Root);
}

Expected<Value> Expr::evaluate(const std::map<std::string, Value> &env) const {
  auto find = [&](const Node &n) -> std::optional<Value> {
    auto it = env.find(n.name);
    if (it == env.end())
      return std::nullopt;
    return it->second;
  };
  return Evaluator<decltype(find)>(find, Lang).eval(*Root);
}

Expected<int64_t>
Expr::evaluateInt(const std::map<std::string, Value> &env) const {
  auto v = evaluate(env);
  if (!v)
    return std::unexpected(v.error());
  if (v->isInt())
    return v->i;
  if (std::isfinite(v->f) && v->f == std::trunc(v->f) &&
      std::fabs(v->f) < 9.2e18)
    return static_cast<int64_t>(v->f);
  return makeError("expression '" + Source + "' is not an integer (" +
                   v->str() + ")");
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
  if (n->kind != Node::Kind::Int)
    return std::nullopt;
  return negate ? -n->intValue : n->intValue;
}

struct BoundExpr::Program {
  NodePtr root;
  Dialect lang;
};

Expected<BoundExpr> Expr::bind(const std::vector<std::string> &slots) const {
  std::optional<Error> missing;
  NodePtr root = rewrite(Root, [&](const Node &n) -> NodePtr {
    if (n.kind != Node::Kind::Name)
      return nullptr;
    auto it = std::find(slots.begin(), slots.end(), n.name);
    if (it == slots.end()) {
      if (!missing)
        missing = Error{columnPrefix(n.column) + "unknown name '" + n.name +
                            "'",
                        ""};
      return nullptr;
    }
    Node copy = n;
    copy.slot = static_cast<int>(it - slots.begin());
    return std::make_shared<const Node>(std::move(copy));
  });
  if (missing)
    return std::unexpected(*missing);
  BoundExpr bound;
  bound.Code = std::make_shared<const BoundExpr::Program>(BoundExpr::Program{root, Lang});
  return bound;
}

Expected<Value> BoundExpr::evaluate(std::span<const Value> slots) const {
  auto find = [&](const Node &n) -> std::optional<Value> {
    if (n.slot < 0 || static_cast<size_t>(n.slot) >= slots.size())
      return std::nullopt;
    return slots[n.slot];
  };
  return Evaluator<decltype(find)>(find, Code->lang).eval(*Code->root);
}

bool BoundExpr::holds(std::span<const int64_t> slots) const {
  auto find = [&](const Node &n) -> std::optional<Value> {
    if (n.slot < 0 || static_cast<size_t>(n.slot) >= slots.size())
      return std::nullopt;
    return Value::ofInt(slots[n.slot]);
  };
  auto v = Evaluator<decltype(find)>(find, Code->lang).eval(*Code->root);
  return v && v->truthy();
}

Expected<std::vector<Expr>> parseAll(const std::vector<std::string> &texts,
                                     Dialect dialect) {
  std::vector<Expr> out;
  for (size_t k = 0; k < texts.size(); ++k) {
    auto e = Expr::parse(texts[k], dialect);
    if (!e)
      return makeError(e.error().message, "[" + std::to_string(k) + "]");
    out.push_back(std::move(*e));
  }
  return out;
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
