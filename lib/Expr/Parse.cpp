//===- Parse.cpp - Parser of the expression language ----------------------===//

#include "ExprInternal.h"
#include "Lexer.h"

#include "ktune/Support/Try.h"

#include <set>

namespace ktune::expr {

namespace {

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

  // Recursion is bounded: every way the grammar nests (parentheses, call
  // arguments, ?: branches, unary operators, `not`, `**`) enters a Level,
  // and trees built by loops (a + b + c ...) have their depth checked in
  // makeNode; both stop at MaxNestingDepth.
  class Level {
  public:
    explicit Level(int &nesting) : Nesting(nesting) { ++Nesting; }
    ~Level() { --Nesting; }
    Level(const Level &) = delete;
    Level &operator=(const Level &) = delete;

  private:
    int &Nesting;
  };
  bool tooDeep() const { return Nesting > MaxNestingDepth; }
  static std::unexpected<Error> tooDeepError(int column) {
    return makeError(columnPrefix(column) +
                     "expression nested too deeply (more than " +
                     std::to_string(MaxNestingDepth) + " levels)");
  }

  static Expected<NodePtr> makeNode(Node n) {
    n.depth = depthOf(n);
    if (n.depth > MaxNestingDepth)
      return tooDeepError(n.column);
    return std::make_shared<const Node>(std::move(n));
  }
  static Expected<NodePtr> makeUnary(Op op, NodePtr operand, int column) {
    Node n;
    n.kind = Node::Kind::Unary;
    n.op = op;
    n.column = column;
    n.operands = {std::move(operand)};
    return makeNode(std::move(n));
  }
  static Expected<NodePtr> makeBinary(Op op, NodePtr lhs, NodePtr rhs,
                                      int column) {
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
    Level level(Nesting);
    if (tooDeep())
      return tooDeepError(column);
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
      if (!lhs)
        return lhs;
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
      if (!lhs)
        return lhs;
    }
    return lhs;
  }

  // Python's `not` binds looser than comparisons; C's `!` is unary (below).
  Expected<NodePtr> parseNot() {
    if (peek().kind == Tok::KwNot) {
      int column = take().column;
      Level level(Nesting);
      if (tooDeep())
        return tooDeepError(column);
      auto operand = parseNot();
      if (!operand)
        return operand;
      return makeUnary(Op::Not, *operand, column);
    }
    return parseComparison();
  }

  static std::optional<Op> comparisonOp(Tok kind) {
    switch (kind) {
    case Tok::Lt:
      return Op::Lt;
    case Tok::Le:
      return Op::Le;
    case Tok::Gt:
      return Op::Gt;
    case Tok::Ge:
      return Op::Ge;
    case Tok::EqEq:
      return Op::Eq;
    case Tok::Ne:
      return Op::Ne;
    default:
      return std::nullopt;
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
      if (!lhs)
        return lhs;
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
      case Tok::Star:
        op = Op::Mul;
        break;
      case Tok::Slash:
        op = Op::Div;
        break;
      case Tok::SlashSlash:
        op = Op::FloorDiv;
        break;
      case Tok::Percent:
        op = Op::Mod;
        break;
      default:
        return lhs;
      }
      int column = take().column;
      auto rhs = parseUnary();
      if (!rhs)
        return rhs;
      lhs = makeBinary(op, *lhs, *rhs, column);
      if (!lhs)
        return lhs;
    }
  }

  Expected<NodePtr> parseUnary() {
    const Token &t = peek();
    if (t.kind == Tok::Minus || t.kind == Tok::Plus || t.kind == Tok::Bang) {
      take();
      Op op = t.kind == Tok::Minus  ? Op::Neg
              : t.kind == Tok::Plus ? Op::Plus
                                    : Op::Not;
      Level level(Nesting);
      if (tooDeep())
        return tooDeepError(t.column);
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
    Level level(Nesting);
    if (tooDeep())
      return tooDeepError(column);
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
      Level level(Nesting);
      if (tooDeep())
        return tooDeepError(t.column);
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
      Level level(Nesting);
      if (tooDeep())
        return tooDeepError(t.column);
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
                : n.name == "abs"                    ? arity == 1
                                                     : arity == 2;
      if (!ok)
        return makeError(columnPrefix(t.column) +
                         "wrong number of arguments (" + std::to_string(arity) +
                         ") for '" + n.name + "'");
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
  int Nesting = 0;
};

} // namespace

Expected<NodePtr> parseTree(std::string_view text, Dialect dialect) {
  if (text.size() > MaxTextLength)
    return makeError("expression is " + std::to_string(text.size()) +
                     " bytes long (at most " + std::to_string(MaxTextLength) +
                     ")");
  KTUNE_TRY_ASSIGN(auto tokens, lex(text));
  Parser parser(std::move(tokens), dialect);
  return parser.parseAll();
}

Expected<Expr> Expr::parse(std::string_view text, Dialect dialect) {
  KTUNE_TRY_ASSIGN(NodePtr root, parseTree(text, dialect));
  return Expr(std::move(root), std::string(text), dialect);
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

} // namespace ktune::expr
