//===- Evaluate.cpp - Evaluating expressions -----------------------------===//
//
// Integer arithmetic is checked: overflow and division by zero are errors
// naming the column, never undefined behaviour. The Python dialect divides
// with `/` as true division and takes floor modulo with `%`.
//
//===----------------------------------------------------------------------===//

#include "ExprInternal.h"

#include "ktune/Support/Try.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <optional>

namespace ktune::expr {

namespace {

// Integer division helpers; callers rule out b == 0 and INT64_MIN / -1, the
// only cases where a / b or a % b is undefined. The adjustments cannot
// overflow: a non-zero remainder means |b| >= 2, so |a / b| <= 2^62.
int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0)))
    --q;
  return q;
}

int64_t ceilDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) == (b < 0)))
    ++q;
  return q;
}

// Python's modulo takes the divisor's sign; r + b cannot overflow since r
// and b then have opposite signs.
int64_t floorMod(int64_t a, int64_t b) {
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0)))
    r += b;
  return r;
}

/// a ** b for b >= 0, nullopt on overflow.
std::optional<int64_t> power(int64_t a, int64_t b) {
  if (a == 0)
    return b == 0 ? 1 : 0;
  if (a == 1)
    return 1;
  if (a == -1)
    return b % 2 ? -1 : 1;
  // |a| >= 2: at most 63 rounds before overflow.
  int64_t result = 1;
  for (int64_t k = 0; k < b; ++k)
    if (__builtin_mul_overflow(result, a, &result))
      return std::nullopt;
  return result;
}

template <class Lookup> class Evaluator {
public:
  /// `root` and `text` name the whole expression in error messages; a quiet
  /// evaluator (many evaluations that only need true/false) skips them.
  Evaluator(const Lookup &lookup, Dialect dialect, const Node &root,
            std::string_view text, bool quiet = false)
      : Find(lookup), Lang(dialect), Root(root), Text(text), Quiet(quiet) {}

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
  /// "col 3: integer overflow in 'a * b' (in 'a * b < 8')".
  std::unexpected<Error> fail(const Node &n, const std::string &what) const {
    if (Quiet)
      return makeError(what);
    std::string message =
        columnPrefix(n.column) + what + " in '" + elide(printKtune(n)) + "'";
    if (&n != &Root && !Text.empty())
      message += " (in '" + elide(Text) + "')";
    return makeError(std::move(message));
  }
  std::unexpected<Error> overflow(const Node &n) const {
    return fail(n, "integer overflow");
  }
  std::unexpected<Error> divisionByZero(const Node &n) const {
    return fail(n, "division by zero");
  }

  static bool compare(Op op, const Value &a, const Value &b) {
    if (a.isInt() && b.isInt()) {
      switch (op) {
      case Op::Lt:
        return a.i < b.i;
      case Op::Le:
        return a.i <= b.i;
      case Op::Gt:
        return a.i > b.i;
      case Op::Ge:
        return a.i >= b.i;
      case Op::Eq:
        return a.i == b.i;
      default:
        return a.i != b.i;
      }
    }
    double x = a.asDouble(), y = b.asDouble();
    switch (op) {
    case Op::Lt:
      return x < y;
    case Op::Le:
      return x <= y;
    case Op::Gt:
      return x > y;
    case Op::Ge:
      return x >= y;
    case Op::Eq:
      return x == y;
    default:
      return x != y;
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
          return divisionByZero(n);
        // INT64_MIN / -1 overflows, and C++ leaves INT64_MIN % -1 undefined
        // too (the C++ we print would not compile): both are errors.
        if (a == INT64_MIN && b == -1)
          return overflow(n);
        if (n.op == Op::Div)
          return Value::ofInt(a / b);
        if (n.op == Op::FloorDiv)
          return Value::ofInt(floorDiv(a, b));
        return Value::ofInt(Lang == Dialect::Python ? floorMod(a, b) : a % b);
      case Op::Pow: {
        if (b < 0) {
          // Python: 0 ** -1 raises ZeroDivisionError; otherwise a float.
          if (a == 0)
            return divisionByZero(n);
          return Value::ofFloat(
              std::pow(static_cast<double>(a), static_cast<double>(b)));
        }
        std::optional<int64_t> result = power(a, b);
        if (!result)
          return overflow(n);
        return Value::ofInt(*result);
      }
      default:
        break;
      }
    }
    double x = lhs->asDouble(), y = rhs->asDouble();
    switch (n.op) {
    case Op::Add:
      return Value::ofFloat(x + y);
    case Op::Sub:
      return Value::ofFloat(x - y);
    case Op::Mul:
      return Value::ofFloat(x * y);
    case Op::Div:
      if (y == 0)
        return divisionByZero(n);
      return Value::ofFloat(x / y);
    case Op::FloorDiv:
      if (y == 0)
        return divisionByZero(n);
      return Value::ofFloat(std::floor(x / y));
    case Op::Mod:
      if (y == 0)
        return divisionByZero(n);
      return Value::ofFloat(Lang == Dialect::Python ? x - std::floor(x / y) * y
                                                    : std::fmod(x, y));
    case Op::Pow:
      if (x == 0 && y < 0)
        return divisionByZero(n);
      return Value::ofFloat(std::pow(x, y));
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
      return fail(n, "ceil_div takes integer arguments");
    int64_t a = args[0].i, b = args[1].i;
    if (b == 0)
      return divisionByZero(n);
    if (a == INT64_MIN && b == -1)
      return overflow(n);
    return Value::ofInt(ceilDiv(a, b));
  }

  const Lookup &Find;
  Dialect Lang;
  const Node &Root;
  std::string_view Text;
  bool Quiet;
};

} // namespace

Expected<Value> Expr::evaluate(const NameLookup &lookup) const {
  auto find = [&](const Node &n) { return lookup(n.name); };
  return Evaluator<decltype(find)>(find, Lang, *Root, Source).eval(*Root);
}

Expected<Value> Expr::evaluate(const std::map<std::string, Value> &env) const {
  auto find = [&](const Node &n) -> std::optional<Value> {
    auto it = env.find(n.name);
    if (it == env.end())
      return std::nullopt;
    return it->second;
  };
  return Evaluator<decltype(find)>(find, Lang, *Root, Source).eval(*Root);
}

Expected<int64_t>
Expr::evaluateInt(const std::map<std::string, Value> &env) const {
  KTUNE_TRY_ASSIGN(Value v, evaluate(env));
  if (std::optional<int64_t> i = v.exactInt())
    return *i;
  return makeError("expression '" + elide(Source) + "' is not an integer (" +
                   v.str() + ")");
}

struct BoundExpr::Program {
  NodePtr root;
  Dialect lang;
  std::string text;
};

Expected<BoundExpr> Expr::bind(const std::vector<std::string> &slots) const {
  std::optional<Error> missing;
  NodePtr root = rewrite(Root, [&](const Node &n) -> NodePtr {
    if (n.kind != Node::Kind::Name)
      return nullptr;
    auto it = std::find(slots.begin(), slots.end(), n.name);
    if (it == slots.end()) {
      if (!missing)
        missing =
            Error{columnPrefix(n.column) + "unknown name '" + n.name + "'", ""};
      return nullptr;
    }
    Node copy = n;
    copy.slot = static_cast<int>(it - slots.begin());
    return std::make_shared<const Node>(std::move(copy));
  });
  if (missing)
    return std::unexpected(*missing);
  BoundExpr bound;
  bound.Code = std::make_shared<const BoundExpr::Program>(
      BoundExpr::Program{root, Lang, Source});
  return bound;
}

Expected<Value> BoundExpr::evaluate(std::span<const Value> slots) const {
  auto find = [&](const Node &n) -> std::optional<Value> {
    if (n.slot < 0 || static_cast<size_t>(n.slot) >= slots.size())
      return std::nullopt;
    return slots[n.slot];
  };
  return Evaluator<decltype(find)>(find, Code->lang, *Code->root, Code->text)
      .eval(*Code->root);
}

bool BoundExpr::holds(std::span<const int64_t> slots) const {
  auto find = [&](const Node &n) -> std::optional<Value> {
    if (n.slot < 0 || static_cast<size_t>(n.slot) >= slots.size())
      return std::nullopt;
    return Value::ofInt(slots[n.slot]);
  };
  // Quiet: an error only means false here, so no message is composed.
  auto v = Evaluator<decltype(find)>(find, Code->lang, *Code->root, Code->text,
                                     /*quiet=*/true)
               .eval(*Code->root);
  return v && v->truthy();
}

} // namespace ktune::expr
