//===- Parse.cpp - Parser of the expression language ----------------------===//

#include "ExprInternal.h"
#include "Lexer.h"

#include "ktune/Support/Try.h"

#include <optional>
#include <set>
#include <utility>

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
  /// A node of `kind` at `column`, the rest to fill in.
  static Node node(Node::Kind kind, int column) {
    Node n;
    n.kind = kind;
    n.column = column;
    return n;
  }
  /// A Unary or a Binary node.
  static Expected<NodePtr> makeOperator(Node::Kind kind, Op op,
                                        std::vector<NodePtr> operands,
                                        int column) {
    Node n = node(kind, column);
    n.op = op;
    n.operands = std::move(operands);
    return makeNode(std::move(n));
  }

  using ParseFn = Expected<NodePtr> (Parser::*)();

  /// What `parse` reads one Level deeper.
  Expected<NodePtr> nested(int column, ParseFn parse) {
    Level level(Nesting);
    if (tooDeep())
      return tooDeepError(column);
    return (this->*parse)();
  }

  /// The unary `op` at `column` applied to what `parse` reads, nested.
  Expected<NodePtr> unary(Op op, int column, ParseFn parse) {
    KTUNE_TRY_ASSIGN(NodePtr operand, nested(column, parse));
    return makeOperator(Node::Kind::Unary, op, {std::move(operand)}, column);
  }

  /// Takes an operator that one dialect has ('?:' the ktune dialect's, '**'
  /// Python's): its column, or an error in the other dialect.
  Expected<int> takeDialectOperator() {
    const Token &t = take();
    bool python = t.kind == Tok::StarStar;
    if ((Lang == Dialect::Python) == python)
      return t.column;
    return makeError(columnPrefix(t.column) +
                     (python ? "'**' is only part of the Python dialect"
                             : "'?:' is not part of the Python dialect"));
  }

  Expected<NodePtr> parseTernary() {
    auto cond = parseOr();
    if (!cond || peek().kind != Tok::Question)
      return cond;
    KTUNE_TRY_ASSIGN(int column, takeDialectOperator());
    KTUNE_TRY_ASSIGN(NodePtr then, nested(column, &Parser::parseTernary));
    if (!accept(Tok::Colon))
      return unexpected();
    KTUNE_TRY_ASSIGN(NodePtr otherwise, nested(column, &Parser::parseTernary));
    Node n = node(Node::Kind::Ternary, column);
    n.operands = {*cond, then, otherwise};
    return makeNode(std::move(n));
  }

  /// The binary operator (a comparison included) a token spells.
  static std::optional<Op> binaryOp(Tok kind) {
    switch (kind) {
    case Tok::KwOr:
    case Tok::OrOr:
      return Op::Or;
    case Tok::KwAnd:
    case Tok::AndAnd:
      return Op::And;
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
    case Tok::Plus:
      return Op::Add;
    case Tok::Minus:
      return Op::Sub;
    case Tok::Star:
      return Op::Mul;
    case Tok::Slash:
      return Op::Div;
    case Tok::SlashSlash:
      return Op::FloorDiv;
    case Tok::Percent:
      return Op::Mod;
    default:
      return std::nullopt;
    }
  }

  /// The binary operator of `precedence` that the next token spells.
  std::optional<Op> operatorAt(int precedence) const {
    auto op = binaryOp(peek().kind);
    if (op && binaryPrecedence(*op) == precedence)
      return op;
    return std::nullopt;
  }

  /// Operands read by `operand`, joined left to right by the operators of
  /// `precedence`.
  Expected<NodePtr> parseLeftToRight(int precedence, ParseFn operand) {
    auto lhs = (this->*operand)();
    if (!lhs)
      return lhs;
    while (auto op = operatorAt(precedence)) {
      int column = take().column;
      auto rhs = (this->*operand)();
      if (!rhs)
        return rhs;
      lhs = makeOperator(Node::Kind::Binary, *op, {*lhs, *rhs}, column);
      if (!lhs)
        return lhs;
    }
    return lhs;
  }

  Expected<NodePtr> parseOr() {
    return parseLeftToRight(binaryPrecedence(Op::Or), &Parser::parseAnd);
  }
  Expected<NodePtr> parseAnd() {
    return parseLeftToRight(binaryPrecedence(Op::And), &Parser::parseNot);
  }

  // Python's `not` binds looser than comparisons; C's `!` is unary (below).
  Expected<NodePtr> parseNot() {
    if (peek().kind == Tok::KwNot)
      return unary(Op::Not, take().column, &Parser::parseNot);
    return parseComparison();
  }

  // Chains read as in Python: a < b < c means a < b and b < c.
  Expected<NodePtr> parseComparison() {
    auto first = parseAdditive();
    if (!first)
      return first;
    const int comparison = binaryPrecedence(Op::Lt);
    auto op = operatorAt(comparison);
    if (!op)
      return first;
    Node n = node(Node::Kind::Compare, peek().column);
    n.operands.push_back(*first);
    while ((op = operatorAt(comparison))) {
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
    return parseLeftToRight(binaryPrecedence(Op::Add),
                            &Parser::parseMultiplicative);
  }
  Expected<NodePtr> parseMultiplicative() {
    return parseLeftToRight(binaryPrecedence(Op::Mul), &Parser::parseUnary);
  }

  Expected<NodePtr> parseUnary() {
    const Token &t = peek();
    if (t.kind == Tok::Minus || t.kind == Tok::Plus || t.kind == Tok::Bang) {
      take();
      Op op = t.kind == Tok::Minus  ? Op::Neg
              : t.kind == Tok::Plus ? Op::Plus
                                    : Op::Not;
      return unary(op, t.column, &Parser::parseUnary);
    }
    return parsePower();
  }

  Expected<NodePtr> parsePower() {
    auto base = parsePrimary();
    if (!base || peek().kind != Tok::StarStar)
      return base;
    KTUNE_TRY_ASSIGN(int column, takeDialectOperator());
    KTUNE_TRY_ASSIGN(NodePtr exponent, nested(column, &Parser::parseUnary));
    return makeOperator(Node::Kind::Binary, Op::Pow, {*base, exponent}, column);
  }

  Expected<NodePtr> parsePrimary() {
    const Token &t = take();
    switch (t.kind) {
    case Tok::Int:
    case Tok::KwTrue:
    case Tok::KwFalse: {
      Node n = node(Node::Kind::Int, t.column);
      n.intValue = t.kind == Tok::Int ? t.intValue : t.kind == Tok::KwTrue;
      return makeNode(std::move(n));
    }
    case Tok::Float: {
      Node n = node(Node::Kind::Float, t.column);
      n.floatValue = t.floatValue;
      return makeNode(std::move(n));
    }
    case Tok::LParen: {
      KTUNE_TRY_ASSIGN(NodePtr inner, nested(t.column, &Parser::parseTernary));
      if (!accept(Tok::RParen))
        return unexpected();
      return inner;
    }
    case Tok::Name: {
      if (peek().kind != Tok::LParen) {
        Node n = node(Node::Kind::Name, t.column);
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
      Node n = node(Node::Kind::Call, t.column);
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
