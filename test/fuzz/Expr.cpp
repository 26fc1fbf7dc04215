//===- Expr.cpp - Fuzzes the expression language --------------------------===//
//
// The first byte picks the dialect and the values names take; the rest is
// an expression, parsed, printed, turned into C++, renamed and evaluated
// through both the tree and the bound program.
//
//===----------------------------------------------------------------------===//
#include "ktune/Expr/Expr.h"
#include "FuzzSupport.h"

#include <cstdint>
#include <limits>

using namespace ktune;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  uint8_t mode = data[0];
  std::string text = fuzz::text(data + 1, size - 1);
  auto dialect = mode & 1 ? expr::Dialect::Python : expr::Dialect::Ktune;
  auto parsed = expr::Expr::parse(text, dialect);
  if (!parsed)
    return 0;
  const expr::Expr &e = *parsed;

  // Names take edge values as well as ordinary ones.
  static const int64_t Picks[] = {0,
                                  1,
                                  -1,
                                  2,
                                  7,
                                  256,
                                  std::numeric_limits<int64_t>::max(),
                                  std::numeric_limits<int64_t>::min()};
  std::map<std::string, expr::Value> env;
  std::vector<std::string> names = e.names();
  size_t k = mode >> 1;
  for (const std::string &n : names) {
    env[n] = k % 9 == 8 ? expr::Value::ofFloat(1e30)
                        : expr::Value::ofInt(Picks[k % 9 % 8]);
    k = k * 31 + 7;
  }
  fuzz::use(e.evaluate(env));
  fuzz::use(e.evaluateInt(env));
  if (auto bound = e.bind(names)) {
    std::vector<expr::Value> slots;
    std::vector<int64_t> ints;
    for (const std::string &n : names) {
      slots.push_back(env[n]);
      ints.push_back(env[n].isInt() ? env[n].i : 0);
    }
    fuzz::use(bound->evaluate(slots));
    fuzz::use(bound->holds(ints));
  }

  std::string canonical = e.str();
  fuzz::use(expr::Expr::parse(canonical));
  fuzz::use(e.toCpp());
  fuzz::use(e.asIntegerLiteral());
  std::map<std::string, std::string> renames;
  std::map<std::string, expr::Expr> held;
  for (const std::string &n : names) {
    renames[n] = n + "_r";
    held.emplace(n, expr::Expr::integer(3));
  }
  fuzz::use(e.rename(renames).str());
  fuzz::use(e.substitute(held).evaluate(env));
  fuzz::use(expr::renameIdentifiers(text, renames));
  return 0;
}
