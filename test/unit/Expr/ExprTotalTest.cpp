// Hostile input to the expression language: every case here answers with a
// value or an error, never a crash or undefined behaviour (the tests are
// meant to run under -fsanitize=address,undefined as well).
#include "ktune/Expr/Expr.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace ktune::expr;

namespace {

const std::string Min = "(-9223372036854775807 - 1)";
const std::string Max = "9223372036854775807";

ktune::Expected<Value> evalText(const std::string &text,
                                Dialect dialect = Dialect::Ktune,
                                const std::map<std::string, Value> &env = {}) {
  auto e = Expr::parse(text, dialect);
  if (!e)
    return std::unexpected(e.error());
  return e->evaluate(env);
}

int64_t evalInt(const std::string &text, Dialect dialect = Dialect::Ktune) {
  auto v = evalText(text, dialect);
  EXPECT_TRUE(v.has_value()) << text << ": " << v.error().str();
  if (!v)
    return 0;
  EXPECT_TRUE(v->isInt()) << text;
  return v->i;
}

/// The evaluation error of `text` (which must parse).
std::string evalError(const std::string &text,
                      Dialect dialect = Dialect::Ktune) {
  auto e = Expr::parse(text, dialect);
  EXPECT_TRUE(e.has_value()) << text << ": " << e.error().str();
  if (!e)
    return "";
  auto v = e->evaluate(std::map<std::string, Value>{});
  EXPECT_FALSE(v.has_value()) << text << " = " << v->str();
  return v ? "" : v.error().message;
}

std::string parseError(const std::string &text,
                       Dialect dialect = Dialect::Ktune) {
  auto e = Expr::parse(text, dialect);
  EXPECT_FALSE(e.has_value()) << text.substr(0, 80);
  return e ? "" : e.error().message;
}

std::string repeat(const std::string &s, size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (size_t k = 0; k < n; ++k)
    out += s;
  return out;
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

TEST(ExprTotal, OverflowIsAnErrorQuotingTheText) {
  for (Dialect d : {Dialect::Ktune, Dialect::Python}) {
    for (std::string text :
         {Max + " + 1", Min + " - 1", Max + " * 2", Min + " * -1", "-" + Min,
          Min + " / -1", Min + " // -1", Min + " % -1",
          "ceil_div(" + Min + ", -1)", "abs(" + Min + ")", "-(" + Min + ")"}) {
      if (d == Dialect::Python && contains(text, " / "))
        continue; // true division: a float, no overflow
      std::string message = evalError(text, d);
      EXPECT_TRUE(contains(message, "integer overflow"))
          << text << ": " << message;
      EXPECT_TRUE(contains(message, "'")) << message;
    }
  }
  EXPECT_EQ(evalError("ceil_div(-9223372036854775807 - 1, -1)"),
            "col 1: integer overflow in "
            "'ceil_div(-9223372036854775807 - 1, -1)'");
  // A part that fails is quoted with the whole expression.
  auto e = Expr::parse("a * b < 8");
  ASSERT_TRUE(e);
  auto v = e->evaluate(
      {{"a", Value::ofInt(int64_t(1) << 62)}, {"b", Value::ofInt(4)}});
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().message,
            "col 3: integer overflow in 'a * b' (in 'a * b < 8')");
}

TEST(ExprTotal, PowerChecksOverflowAndZero) {
  auto py = Dialect::Python;
  EXPECT_EQ(evalInt("2 ** 62", py), int64_t(1) << 62);
  EXPECT_EQ(evalInt("(-2) ** 63", py), std::numeric_limits<int64_t>::min());
  EXPECT_TRUE(contains(evalError("2 ** 63", py), "integer overflow"));
  EXPECT_TRUE(contains(evalError("3 ** 40", py), "integer overflow"));
  EXPECT_TRUE(contains(evalError("(-2) ** 64", py), "integer overflow"));
  // -1, 0 and 1 to huge powers answer at once, with the right sign.
  EXPECT_EQ(evalInt("(-1) ** 3", py), -1);
  EXPECT_EQ(evalInt("(-1) ** 4", py), 1);
  EXPECT_EQ(evalInt("(-1) ** " + Max, py), -1);
  EXPECT_EQ(evalInt("1 ** " + Max, py), 1);
  EXPECT_EQ(evalInt("0 ** " + Max, py), 0);
  EXPECT_EQ(evalInt("0 ** 0", py), 1);
  // Python: 0 ** -1 raises ZeroDivisionError.
  EXPECT_TRUE(contains(evalError("0 ** -1", py), "division by zero"));
  EXPECT_TRUE(contains(evalError("0.0 ** -1", py), "division by zero"));
  auto half = evalText("2 ** -1", py);
  ASSERT_TRUE(half);
  EXPECT_DOUBLE_EQ(half->f, 0.5);
}

TEST(ExprTotal, DivisionAndModuloByZero) {
  for (Dialect d : {Dialect::Ktune, Dialect::Python})
    for (std::string text : std::vector<std::string>{
             "1 / 0", "1 // 0", "1 % 0", "ceil_div(1, 0)", "1.5 / 0",
             "1.5 // 0", "1.5 % 0", Min + " // 0", Min + " % 0"}) {
      std::string message = evalError(text, d);
      EXPECT_TRUE(contains(message, "division by zero")) << text;
      EXPECT_TRUE(contains(message, "in '")) << message;
    }
}

TEST(ExprTotal, ExactResultsAtTheEdges) {
  auto py = Dialect::Python;
  // Python: floor division and a modulo with the divisor's sign, exact
  // where a - (a // b) * b would overflow.
  EXPECT_EQ(evalInt(Min + " % " + Max, py), 9223372036854775806);
  EXPECT_EQ(evalInt(Min + " // " + Max, py), -2);
  EXPECT_EQ(evalInt(Max + " % " + Min, py), -1);
  EXPECT_EQ(evalInt(Max + " // " + Min, py), -1);
  EXPECT_EQ(evalInt(Min + " % 2", py), 0);
  EXPECT_EQ(evalInt(Min + " % -3", py), -2);
  EXPECT_EQ(evalInt("-7 % 3", py), 2);
  EXPECT_EQ(evalInt("7 % -3", py), -2);
  EXPECT_EQ(evalInt("-7 // 2", py), -4);
  // The ktune dialect's % truncates, as C++ does.
  EXPECT_EQ(evalInt(Min + " % " + Max), -1);
  EXPECT_EQ(evalInt(Min + " / " + Max), -1);
  // ceil_div rounds toward +infinity for every sign.
  EXPECT_EQ(evalInt("ceil_div(7, 2)"), 4);
  EXPECT_EQ(evalInt("ceil_div(-7, 2)"), -3);
  EXPECT_EQ(evalInt("ceil_div(7, -2)"), -3);
  EXPECT_EQ(evalInt("ceil_div(-7, -2)"), 4);
  EXPECT_EQ(evalInt("ceil_div(" + Min + ", 2)"), -4611686018427387904);
  EXPECT_EQ(evalInt("ceil_div(" + Min + ", 1)"),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(evalInt("ceil_div(" + Max + ", 2)"), 4611686018427387904);
  EXPECT_EQ(evalInt("ceil_div(" + Max + ", -1)"), -9223372036854775807);
  EXPECT_EQ(evalInt(Min + " / 1"), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(evalInt("abs(-" + Max + ")"), 9223372036854775807);
  EXPECT_EQ(evalInt(Max + " + " + Min), -1);
}

TEST(ExprTotal, FloatToIntIsRangeChecked) {
  for (std::string text :
       {"1e30", "9.3e18", "-9.3e18", "9223372036854775808.0", "2.5",
        "1e308 * 10", "-1e308 * 10", "1e308 * 10 - 1e308 * 10"}) {
    auto e = Expr::parse(text);
    ASSERT_TRUE(e) << text;
    auto i = e->evaluateInt({});
    ASSERT_FALSE(i) << text << " = " << *i;
    EXPECT_TRUE(contains(i.error().message, "is not an integer")) << text;
  }
  EXPECT_EQ(*Expr::parse("9.2e18")->evaluateInt({}), 9200000000000000000);
  EXPECT_EQ(*Expr::parse("-9223372036854775808.0")->evaluateInt({}),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(*Expr::parse("4.0")->evaluateInt({}), 4);

  double nan = std::numeric_limits<double>::quiet_NaN();
  double inf = std::numeric_limits<double>::infinity();
  for (double f :
       {nan, inf, -inf, 1e30, -1e30, 9.3e18, 9223372036854775808.0, 0.5})
    EXPECT_FALSE(Value::ofFloat(f).exactInt()) << f;
  EXPECT_EQ(Value::ofFloat(-9223372036854775808.0).exactInt(),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(Value::ofFloat(-0.0).exactInt(), 0);
  EXPECT_EQ(Value::ofInt(7).exactInt(), 7);
}

TEST(ExprTotal, LiteralsOutOfRangeDoNotParse) {
  EXPECT_EQ(parseError("1e999"),
            "col 1: floating literal '1e999' is out of range");
  EXPECT_TRUE(contains(parseError("2 * 1.5e309"), "col 5: floating literal"));
  EXPECT_TRUE(contains(parseError("1e-999"), "out of range"));
  EXPECT_TRUE(contains(parseError("1e999", Dialect::Python), "out of range"));
  EXPECT_TRUE(contains(parseError("9223372036854775808"), "out of range"));
  EXPECT_TRUE(contains(parseError("-9223372036854775808"), "out of range"));
  EXPECT_TRUE(
      contains(parseError("9_223_372_036_854_775_808"), "out of range"));
  EXPECT_TRUE(contains(parseError(repeat("9", 5000)), "out of range"));
  EXPECT_TRUE(Expr::parse("1.7976931348623157e308"));
  EXPECT_TRUE(Expr::parse("9223372036854775807"));
}

TEST(ExprTotal, LongTextIsRefused) {
  std::string text = "1" + std::string(MaxTextLength, ' ');
  EXPECT_EQ(parseError(text), "expression is 65537 bytes long (at most 65536)");
  EXPECT_TRUE(Expr::parse("1" + std::string(MaxTextLength - 1, ' ')));
  // 100,000 parentheses or minus signs: refused for their length, no stack
  // overflow.
  EXPECT_TRUE(
      contains(parseError(repeat("(", 100000) + "1" + repeat(")", 100000)),
               "bytes long"));
  EXPECT_TRUE(contains(parseError(repeat("-", 100000) + "1"), "bytes long"));
}

TEST(ExprTotal, DeepNestingIsRefused) {
  const std::string tooDeep = "expression nested too deeply (more than 256 "
                              "levels)";
  size_t n = 30000; // under the length limit
  for (std::string text :
       {repeat("(", n) + "1" + repeat(")", n), repeat("-", 2 * n) + "1",
        repeat("+", 2 * n) + "1", repeat("!", 2 * n) + "1",
        repeat("not ", n / 2) + "1", repeat("abs(", n / 2) + "1",
        repeat("min(1, ", n / 4) + "1", repeat("1 ? 2 : ", n / 4) + "3",
        repeat("1 + ", n / 2) + "1", repeat("1 // ", n / 3) + "1",
        repeat("1 < (", n / 3) + "1", repeat("a and ", n / 3) + "a"}) {
    std::string message = parseError(text);
    EXPECT_TRUE(contains(message, tooDeep))
        << text.substr(0, 40) << ": " << message;
    EXPECT_EQ(message.rfind("col ", 0), 0u) << message;
  }
  auto py = Dialect::Python;
  EXPECT_TRUE(contains(parseError(repeat("2 ** ", n / 3) + "1", py), tooDeep));
  EXPECT_TRUE(contains(parseError(repeat("not ", n / 2) + "1", py), tooDeep));

  // At the limit: parsed, evaluated, printed and printed again.
  std::string parens =
      repeat("(", MaxNestingDepth) + "7" + repeat(")", MaxNestingDepth);
  EXPECT_EQ(evalInt(parens), 7);
  EXPECT_TRUE(contains(parseError("(" + parens + ")"), tooDeep));
  std::string chain = "1" + repeat(" + 1", MaxNestingDepth - 1);
  EXPECT_EQ(evalInt(chain), MaxNestingDepth);
  EXPECT_TRUE(contains(parseError(chain + " + 1"), "col 1023: " + tooDeep));
  std::string negations = repeat("-", MaxNestingDepth - 1) + "7";
  EXPECT_EQ(evalInt(negations), -7); // an odd number of signs
  EXPECT_TRUE(contains(parseError("-" + negations), tooDeep));
  auto e = Expr::parse(chain);
  ASSERT_TRUE(e);
  auto again = Expr::parse(e->str());
  ASSERT_TRUE(again) << again.error().str();
  EXPECT_EQ(again->str(), e->str());
  EXPECT_FALSE(e->toCpp().empty());
}

/// Nests `wrap` (with X standing for the inner text) `depth` times.
std::string nest(const std::string &wrap, int depth) {
  std::string text = "N";
  for (int k = 0; k < depth; ++k) {
    size_t at = wrap.find('X');
    text = wrap.substr(0, at) + "(" + text + ")" + wrap.substr(at + 1);
  }
  return text;
}

TEST(ExprTotal, CppOutputIsLinear) {
  // The plan constraint of the report: 95 characters that used to print
  // as 160 MB of C++.
  std::string constraint = "BLOCK_SIZE" + repeat(" // 1", 17);
  ASSERT_EQ(constraint.size(), 95u);
  auto e = Expr::parse(constraint);
  ASSERT_TRUE(e);
  EXPECT_LT(e->toCpp().size(), 2000u) << e->toCpp().substr(0, 200);

  struct Case {
    std::string wrap;
    Dialect dialect;
  };
  for (const Case &c : std::vector<Case>{{"X // 3", Dialect::Ktune},
                                         {"X // 3", Dialect::Python},
                                         {"X % 3", Dialect::Python},
                                         {"3 % X", Dialect::Python},
                                         {"ceil_div(2, X)", Dialect::Ktune},
                                         {"abs(X)", Dialect::Ktune},
                                         {"min(X, 2)", Dialect::Ktune},
                                         {"max(1, X, 2)", Dialect::Ktune},
                                         {"1 < X < 3", Dialect::Ktune},
                                         {"X ** 2", Dialect::Python},
                                         {"-X", Dialect::Ktune}}) {
    size_t previous = 0;
    for (int depth : {30, 60, 120}) {
      std::string text = nest(c.wrap, depth);
      auto parsed = Expr::parse(text, c.dialect);
      ASSERT_TRUE(parsed) << c.wrap << ": " << parsed.error().str();
      size_t size = parsed->toCpp().size();
      EXPECT_LT(size, 100 * text.size()) << c.wrap << " at depth " << depth;
      EXPECT_LT(parsed->toCpp(CppForm::Helper).size(), 10 * text.size())
          << c.wrap << " at depth " << depth;
      // Doubling the depth about doubles the output, never squares it.
      if (previous)
        EXPECT_LT(size, 3 * previous) << c.wrap;
      previous = size;
    }
  }
  // min/max of many operands: linear too.
  std::string many = "min(a" + repeat(", a", 2000) + ")";
  auto m = Expr::parse(many);
  ASSERT_TRUE(m);
  EXPECT_LT(m->toCpp().size(), 200 * many.size());
}

TEST(ExprTotal, CppFormsBindCompoundOperandsOnce) {
  // Names and literals are repeated as before.
  EXPECT_EQ(Expr::parse("a // b")->toCpp(),
            "(a / b - ((a % b != 0) && ((a < 0) != (b < 0))))");
  EXPECT_EQ(Expr::parse("abs(x)")->toCpp(), "(x < 0 ? -x : x)");
  EXPECT_EQ(Expr::parse("a % 8", Dialect::Python)->toCpp(),
            "(((a % 8) + 8) % 8)");
  EXPECT_EQ(Expr::parse("a < b <= c")->toCpp(), "(a < b) && (b <= c)");
  // A compound operand used more than once is bound by a lambda.
  EXPECT_EQ(Expr::parse("(n * 2) // b")->toCpp(),
            "[](auto a, auto b) { return a / b - ((a % b != 0) && ((a < 0) != "
            "(b < 0))); }(n * 2, b)");
  EXPECT_EQ(Expr::parse("ceil_div(n, B * V)")->toCpp(),
            "[](auto a, auto b) { return (a + b - 1) / b; }(n, B * V)");
  // ...but an operand used once is not.
  EXPECT_EQ(Expr::parse("ceil_div(n + 1, B)")->toCpp(),
            "(((n + 1) + B - 1) / B)");
  EXPECT_EQ(Expr::parse("abs(x - 1)")->toCpp(),
            "[](auto a) { return a < 0 ? -a : a; }(x - 1)");
  EXPECT_EQ(Expr::parse("min(a, b, c)")->toCpp(),
            "[](auto a, auto b) { return a < b ? a : b; }((a < b ? a : b), c)");
  EXPECT_EQ(Expr::parse("0 < n + 1 < 8")->toCpp(),
            "[](auto a, auto b, auto c) { return (a < b) && (b < c); }(0, n + "
            "1, 8)");
}

TEST(ExprTotal, CppHelperFormForKernelCode) {
  auto helper = [](const std::string &text, Dialect d = Dialect::Ktune) {
    auto e = Expr::parse(text, d);
    EXPECT_TRUE(e) << text;
    return e ? e->toCpp(CppForm::Helper) : "";
  };
  // Leaves: the same inline forms as CppForm::Lambda, no helper needed.
  EXPECT_EQ(helper("a // b"),
            "(a / b - ((a % b != 0) && ((a < 0) != (b < 0))))");
  EXPECT_EQ(helper("min(a, b)"), "(a < b ? a : b)");
  EXPECT_FALSE(
      usesCppHelpers(helper("a // b < 8 and ceil_div(n, B) < max(a, 2)")));
  // Compound operands used more than once go to ktune_expr.
  EXPECT_EQ(helper("(n * 2) // b"), "ktune_expr::floor_div(n * 2, b)");
  EXPECT_EQ(helper("(n + 1) % (b - 1)", Dialect::Python),
            "ktune_expr::py_mod(n + 1, b - 1)");
  EXPECT_EQ(helper("ceil_div(n, B * V)"), "ktune_expr::ceil_div(n, B * V)");
  EXPECT_EQ(helper("abs(x - 1)"), "ktune_expr::abs_of(x - 1)");
  EXPECT_EQ(helper("max(a, b, c)"), "ktune_expr::max_of((a > b ? a : b), c)");
  EXPECT_EQ(helper("0 < n + 1 <= 8"),
            "ktune_expr::chain(0, \"<\", n + 1, \"<=\", 8)");
  EXPECT_EQ(helper("n ** 2", Dialect::Python), "ktune_expr::pow(n, 2)");
  std::string nested = helper("BLOCK // 1 // 1 // 1");
  EXPECT_EQ(nested, "ktune_expr::floor_div(ktune_expr::floor_div((BLOCK / 1 "
                    "- ((BLOCK % 1 != 0) && ((BLOCK < 0) != (1 < 0)))), 1), "
                    "1)");
  EXPECT_TRUE(usesCppHelpers(nested));
  // Every helper the output may call is defined, once per translation unit.
  const std::string &defs = cppHelpers();
  for (std::string name : {"floor_div", "py_mod", "ceil_div", "abs_of",
                           "min_of", "max_of", "pow", "chain"})
    EXPECT_TRUE(contains(defs, " " + name + "(")) << name;
  EXPECT_TRUE(contains(defs, "#ifndef KTUNE_EXPR_HELPERS\n"));
  EXPECT_EQ(defs.back(), '\n');
}

TEST(ExprTotal, NegativeAndExtremeLiteralsPrintBack) {
  auto py = Expr::parse("x ** 2", Dialect::Python);
  ASSERT_TRUE(py);
  Expr squared = py->substitute({{"x", Expr::integer(-5)}});
  EXPECT_EQ(squared.str(), "(-5) ** 2");
  EXPECT_EQ(*squared.evaluateInt({}), 25);
  auto neg = Expr::parse("-x");
  ASSERT_TRUE(neg);
  Expr negated = neg->substitute({{"x", Expr::integer(-5)}});
  EXPECT_EQ(negated.toCpp(), "-(-5)");
  EXPECT_EQ(*negated.evaluateInt({}), 5);

  constexpr int64_t lowest = std::numeric_limits<int64_t>::min();
  Expr min = Expr::integer(lowest);
  EXPECT_EQ(min.str(), "(-9223372036854775807 - 1)");
  EXPECT_EQ(min.toCpp(), "-9223372036854775807LL - 1");
  auto reparsed = Expr::parse(min.str());
  ASSERT_TRUE(reparsed);
  EXPECT_EQ(*reparsed->evaluateInt({}), lowest);
  Expr negatedMin = neg->substitute({{"x", min}});
  EXPECT_EQ(negatedMin.toCpp(), "-(-9223372036854775807LL - 1)");
  EXPECT_FALSE(negatedMin.asIntegerLiteral());
  EXPECT_TRUE(contains(
      negatedMin.evaluate(std::map<std::string, Value>{}).error().message,
      "integer overflow"));
  EXPECT_EQ(min.asIntegerLiteral(), lowest);
}

TEST(ExprTotal, BoundEvaluationIsCheckedToo) {
  auto e = Expr::parse("a * b > 0 and ceil_div(a, b) > 0");
  ASSERT_TRUE(e);
  auto bound = e->bind({"a", "b"});
  ASSERT_TRUE(bound);
  int64_t overflow[] = {int64_t(1) << 62, 4};
  int64_t zero[] = {1, 0};
  int64_t fine[] = {6, 4};
  EXPECT_FALSE(bound->holds(overflow));
  EXPECT_FALSE(bound->holds(zero));
  EXPECT_TRUE(bound->holds(fine));
  Value slots[] = {Value::ofInt(int64_t(1) << 62), Value::ofInt(4)};
  auto v = bound->evaluate(slots);
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().message, "col 3: integer overflow in 'a * b' (in 'a * b "
                               "> 0 and ceil_div(a, b) > 0')");
}

} // namespace
