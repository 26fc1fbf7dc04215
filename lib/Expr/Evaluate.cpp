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

namespace ktune::expr {

namespace {

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

} // namespace

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
  KTUNE_TRY_ASSIGN(Value v, evaluate(env));
  if (v.isInt())
    return v.i;
  if (std::isfinite(v.f) && v.f == std::trunc(v.f) && std::fabs(v.f) < 9.2e18)
    return static_cast<int64_t>(v.f);
  return makeError("expression '" + Source + "' is not an integer (" + v.str() +
                   ")");
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

} // namespace ktune::expr
