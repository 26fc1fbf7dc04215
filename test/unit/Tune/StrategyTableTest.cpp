//===- StrategyTableTest.cpp - The strategy table and what derives from it ===//
//
// The table (lib/Tune/Strategies/Strategies.def) names each strategy's
// options; the factories must read exactly those, and docs/strategies.md
// must list the table as it is.
//
//===----------------------------------------------------------------------===//
#include "ktune/Support/FileUtil.h"
#include "ktune/Tune/Strategy.h"

#include <gtest/gtest.h>

#include <set>
#include <sstream>

using namespace ktune;

namespace {

/// The table as docs/strategies.md shows it.
std::string markdownTable() {
  std::string out = "| strategy | what it does | options |\n|---|---|---|\n";
  for (const auto &row : strategyTable()) {
    std::string options;
    for (const auto &o : row.options)
      options += (options.empty() ? "`" : ", `") + o + "`";
    out += "| `" + row.name + "` | " + row.summary + " | " +
           (options.empty() ? "none" : options) + " |\n";
  }
  return out;
}

/// The options a factory reads: those its "unknown option" error lists.
std::set<std::string> optionsRead(const std::string &strategy) {
  auto made = makeStrategy(strategy, {{"no_such_option", 1}});
  if (made)
    return {"(accepted an unknown option)"};
  const std::string &m = made.error().message;
  auto from = m.find("(known: ");
  if (from == std::string::npos)
    return {"(unexpected error: " + m + ")"};
  std::string list = m.substr(from + 8, m.rfind(')') - from - 8);
  std::set<std::string> names;
  if (list == "none")
    return names;
  std::istringstream in(list);
  for (std::string name; std::getline(in >> std::ws, name, ',');)
    names.insert(name);
  return names;
}

TEST(StrategyTable, NamesMatchTheFactories) {
  ASSERT_FALSE(strategyTable().empty());
  for (const auto &row : strategyTable()) {
    auto s = makeStrategy(row.name);
    ASSERT_TRUE(s) << row.name;
    EXPECT_EQ((*s)->name(), row.name);
    EXPECT_FALSE(row.summary.empty()) << row.name;
    EXPECT_EQ(optionsRead(row.name),
              std::set<std::string>(row.options.begin(), row.options.end()))
        << row.name;
  }
}

TEST(StrategyTable, DocsListTheTable) {
  auto docs = readFile(std::string(KTUNE_SOURCE_DIR) + "/docs/strategies.md");
  ASSERT_TRUE(docs) << docs.error().str();
  EXPECT_NE(docs->find(markdownTable()), std::string::npos)
      << "docs/strategies.md should contain the strategy table:\n"
      << markdownTable();
}

} // namespace
