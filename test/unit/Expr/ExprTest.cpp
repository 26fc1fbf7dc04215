#include "ktune/Expr/Expr.h"

#include <gtest/gtest.h>

using namespace ktune::expr;

namespace {

Value eval(const std::string &text, const std::map<std::string, Value> &env = {},
           Dialect dialect = Dialect::Ktune) {
  auto e = Expr::parse(text, dialect);
  EXPECT_TRUE(e.has_value()) << text << ": " << e.error().str();
  auto v = e->evaluate(env);
  EXPECT_TRUE(v.has_value()) << text << ": " << v.error().str();
  return *v;
}

std::string parseError(const std::string &text, Dialect dialect = Dialect::Ktune) {
  auto e = Expr::parse(text, dialect);
  EXPECT_FALSE(e.has_value()) << text;
  return e ? "" : e.error().message;
}

TEST(Expr, IntegerArithmeticAndPrecedence) {
  EXPECT_EQ(eval("1 + 2 * 3").i, 7);
  EXPECT_EQ(eval("(1 + 2) * 3").i, 9);
  EXPECT_EQ(eval("7 / 2").i, 3);
  EXPECT_EQ(eval("-7 / 2").i, -3); // C++ truncation in the ktune dialect
  EXPECT_EQ(eval("-7 // 2").i, -4); // floor division
  EXPECT_EQ(eval("-7 % 3").i, -1);
  EXPECT_EQ(eval("10 - 4 - 3").i, 3);
  EXPECT_EQ(eval("-2 * -3").i, 6);
}

TEST(Expr, PythonDialectDivisionAndModulo) {
  Value v = eval("7 / 2", {}, Dialect::Python);
  EXPECT_FALSE(v.isInt());
  EXPECT_DOUBLE_EQ(v.f, 3.5);
  EXPECT_EQ(eval("-7 % 3", {}, Dialect::Python).i, 2);
  EXPECT_EQ(eval("2 ** 10", {}, Dialect::Python).i, 1024);
  EXPECT_EQ(eval("-2 ** 2", {}, Dialect::Python).i, -4);
}

TEST(Expr, LogicInBothSpellings) {
  std::map<std::string, Value> env = {{"a", Value::ofInt(64)},
                                      {"b", Value::ofInt(0)}};
  EXPECT_TRUE(eval("a % 32 == 0 and not b", env).truthy());
  EXPECT_TRUE(eval("a % 32 == 0 && !b", env).truthy());
  EXPECT_FALSE(eval("a > 64 || b", env).truthy());
  // Python's `not` binds looser than ==, C's `!` tighter.
  EXPECT_TRUE(eval("not a == 1", env).truthy());
  EXPECT_FALSE(eval("!a == 1", env).truthy());
  EXPECT_TRUE(eval("1 < a <= 64", env).truthy());
  EXPECT_FALSE(eval("1 < a < 64", env).truthy());
}

TEST(Expr, ShortCircuitSkipsDivisionByZero) {
  std::map<std::string, Value> env = {{"b", Value::ofInt(0)}};
  EXPECT_FALSE(eval("b != 0 and 10 / b > 1", env).truthy());
}

TEST(Expr, Functions) {
  EXPECT_EQ(eval("min(4, 2, 8)").i, 2);
  EXPECT_EQ(eval("max(4, 2, 8)").i, 8);
  EXPECT_EQ(eval("max(3)").i, 3);
  EXPECT_EQ(eval("ceil_div(10, 4)").i, 3);
  EXPECT_EQ(eval("ceil_div(8, 4)").i, 2);
  EXPECT_EQ(eval("abs(-5)").i, 5);
  EXPECT_EQ(eval("1 ? 2 : 3").i, 2);
}

TEST(Expr, FloatsAndMixedArithmetic) {
  Value v = eval("1e-6 * 2");
  EXPECT_FALSE(v.isInt());
  EXPECT_DOUBLE_EQ(v.f, 2e-6);
  EXPECT_TRUE(eval("0.5 < 1").truthy());
}

TEST(Expr, ParseErrorsGiveColumns) {
  EXPECT_EQ(parseError("1 +"), "col 4: unexpected end of expression");
  EXPECT_EQ(parseError("(a"), "col 3: unexpected end of expression");
  EXPECT_EQ(parseError("a b"), "col 3: unexpected 'b'");
  EXPECT_NE(parseError("system(1)").find("unknown function 'system'"),
            std::string::npos);
  EXPECT_NE(parseError("X>0; system(1)").find("unexpected character ';'"),
            std::string::npos);
  EXPECT_NE(parseError("2 ** 3").find("Python dialect"), std::string::npos);
  EXPECT_NE(parseError("ceil_div(1)").find("wrong number of arguments"),
            std::string::npos);
  EXPECT_NE(parseError("99999999999999999999").find("out of range"),
            std::string::npos);
}

TEST(Expr, EvaluationErrors) {
  auto e = Expr::parse("a / (b - 2)");
  ASSERT_TRUE(e);
  auto unknown = e->evaluate(std::map<std::string, Value>{});
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().message, "col 1: unknown name 'a'");
  auto zero = e->evaluate({{"a", Value::ofInt(1)}, {"b", Value::ofInt(2)}});
  ASSERT_FALSE(zero);
  EXPECT_NE(zero.error().message.find("division by zero"), std::string::npos);
  auto big = Expr::parse("9223372036854775807 + 1");
  ASSERT_TRUE(big);
  EXPECT_FALSE(big->evaluate(std::map<std::string, Value>{}));
}

TEST(Expr, NamesInOrder) {
  auto e = Expr::parse("TILE * (TILE + 1) * 4 <= smem and BLOCK % 32 == 0");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->names(), (std::vector<std::string>{"TILE", "smem", "BLOCK"}));
}

TEST(Expr, CanonicalTextRoundTrips) {
  for (std::string text : {"a + b * c", "(a + b) * c", "a - (b - c)",
                           "!(a && b) || c", "ceil_div(n, BLOCK * VEC)",
                           "a < b && b <= c", "x ? 1 : 2", "-(a + 1)"}) {
    auto e = Expr::parse(text);
    ASSERT_TRUE(e) << text;
    auto again = Expr::parse(e->str());
    ASSERT_TRUE(again) << e->str();
    EXPECT_EQ(again->str(), e->str());
    std::map<std::string, Value> env = {{"a", Value::ofInt(3)}, {"b", Value::ofInt(5)},
                                        {"c", Value::ofInt(7)}, {"x", Value::ofInt(0)},
                                        {"n", Value::ofInt(100)}, {"BLOCK", Value::ofInt(8)},
                                        {"VEC", Value::ofInt(4)}};
    EXPECT_EQ(e->evaluate(env)->i, again->evaluate(env)->i) << text;
  }
  EXPECT_EQ(Expr::parse("a+b*c")->str(), "a + b * c");
  EXPECT_EQ(Expr::parse("(a+b)*c")->str(), "(a + b) * c");
}

TEST(Expr, CppTranslation) {
  EXPECT_EQ(Expr::parse("BLOCK % 32 == 0 and VEC <= 8")->toCpp(),
            "((BLOCK % 32) == 0) && (VEC <= 8)");
  EXPECT_EQ(Expr::parse("ceil_div(n, B)")->toCpp(), "((n + B - 1) / B)");
  EXPECT_EQ(Expr::parse("min(a, b)")->toCpp(), "(a < b ? a : b)");
  EXPECT_EQ(Expr::parse("not a")->toCpp(), "!a");
}

TEST(Expr, SubstituteRenames) {
  auto e = Expr::parse("(n + B - 1) / B");
  auto b = Expr::parse("BLOCK_SIZE");
  ASSERT_TRUE(e && b);
  EXPECT_EQ(e->substitute({{"B", *b}}).str(), "(n + BLOCK_SIZE - 1) / BLOCK_SIZE");
}

TEST(Expr, RenameChangesNamesOnly) {
  auto e = Expr::parse("B * n <= 1024 && B % 32 == 0");
  ASSERT_TRUE(e);
  Expr renamed = e->rename({{"B", "BLOCK_SIZE"}, {"unused", "X"}});
  EXPECT_EQ(renamed.str(), "BLOCK_SIZE * n <= 1024 && BLOCK_SIZE % 32 == 0");
  EXPECT_EQ(renamed.text(), renamed.str());
  EXPECT_EQ(renamed.names(), (std::vector<std::string>{"BLOCK_SIZE", "n"}));
  EXPECT_EQ(renamed.toCpp(),
            "((BLOCK_SIZE * n) <= 1024) && ((BLOCK_SIZE % 32) == 0)");
  // Renaming to a name already used merges them; evaluation sees the new one.
  EXPECT_EQ(*e->rename({{"B", "n"}}).evaluateInt({{"n", Value::ofInt(32)}}), 1);
  // The original is unchanged (trees are shared, never modified).
  EXPECT_EQ(e->str(), "B * n <= 1024 && B % 32 == 0");
  // Python dialect semantics survive a rename.
  auto py = Expr::parse("a / b", Dialect::Python);
  ASSERT_TRUE(py);
  EXPECT_EQ(py->rename({{"a", "x"}}).toCpp(), "(double(x) / double(b))");
}

TEST(Expr, RenameIdentifiersInText) {
  std::map<std::string, std::string> renames{{"B", "BLOCK_SIZE"}};
  EXPECT_EQ(renameIdentifiers("B*n<=1024", renames), "BLOCK_SIZE * n <= 1024");
  // Untouched when nothing renamed is mentioned, or nothing changes, or the
  // text does not parse: the text as written, not a canonical copy.
  EXPECT_EQ(renameIdentifiers("n*2<=1024", renames), "n*2<=1024");
  EXPECT_EQ(renameIdentifiers("B*n<=1024", {{"B", "B"}}), "B*n<=1024");
  EXPECT_EQ(renameIdentifiers("B*n<=1024", {}), "B*n<=1024");
  EXPECT_EQ(renameIdentifiers("B * <=", renames), "B * <=");
  // Swapping two names at once.
  EXPECT_EQ(renameIdentifiers("A - B", {{"A", "B"}, {"B", "A"}}), "B - A");
}

TEST(Expr, SubstituteNamesInText) {
  std::map<std::string, Expr> held{{"VEC", Expr::integer(4)},
                                   {"NEG", Expr::integer(-2)}};
  EXPECT_EQ(substituteNames("VEC*BLOCK<=1024", held), "4 * BLOCK <= 1024");
  EXPECT_EQ(substituteNames("BLOCK*2", held), "BLOCK*2");
  EXPECT_EQ(substituteNames("VEC * (", held), "VEC * (");
  std::string negated = substituteNames("BLOCK * NEG", held);
  EXPECT_EQ(*Expr::parse(negated)->evaluateInt({{"BLOCK", Value::ofInt(3)}}),
            -6);
  auto b = Expr::parse("BLOCK_SIZE");
  ASSERT_TRUE(b);
  EXPECT_EQ(substituteNames("ceil_div(n, B)", {{"B", *b}}),
            "ceil_div(n, BLOCK_SIZE)");
}

TEST(Expr, BoundEvaluationMatchesTreeWalk) {
  auto e = Expr::parse("use_padding==0 or block_size_x % 32 != 0", Dialect::Python);
  ASSERT_TRUE(e);
  auto bound = e->bind({"block_size_x", "use_padding"});
  ASSERT_TRUE(bound);
  int64_t slotsA[] = {32, 1};
  int64_t slotsB[] = {48, 1};
  int64_t slotsC[] = {32, 0};
  EXPECT_FALSE(bound->holds(slotsA));
  EXPECT_TRUE(bound->holds(slotsB));
  EXPECT_TRUE(bound->holds(slotsC));
  EXPECT_FALSE(e->bind({"use_padding"}));
}

TEST(Expr, IntegerLiteral) {
  EXPECT_EQ(Expr::parse("-4")->asIntegerLiteral(), -4);
  EXPECT_EQ(Expr::parse("256")->asIntegerLiteral(), 256);
  EXPECT_FALSE(Expr::parse("a")->asIntegerLiteral());
}

TEST(Expr, Identifiers) {
  EXPECT_TRUE(isValidIdentifier("BLOCK_SIZE"));
  EXPECT_TRUE(isValidIdentifier("kVec"));
  EXPECT_FALSE(isValidIdentifier("1X"));
  EXPECT_FALSE(isValidIdentifier("X>0; system(\"rm\")"));
  EXPECT_FALSE(isValidIdentifier("int"));
  EXPECT_FALSE(isValidIdentifier("__x"));
  EXPECT_FALSE(isValidIdentifier("_Reserved"));
  EXPECT_FALSE(isValidIdentifier(""));
}

} // namespace
