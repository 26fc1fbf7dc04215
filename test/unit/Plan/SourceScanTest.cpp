#include "ktune/Plan/SourceScan.h"

#include <gtest/gtest.h>

using namespace ktune::source_scan;

TEST(SourceScan, FindsIdentifiersAndMacros) {
  auto ids = scanIdentifiers("#include <cub/block_reduce.cuh>\n"
                             "#define TILE 32\n"
                             "  #  define  PAD(x) ((x) + 1)\n"
                             "constexpr int kBlock = TILE;\n");
  ASSERT_TRUE(ids.count("TILE"));
  EXPECT_TRUE(ids["TILE"].macro);
  EXPECT_EQ(ids["TILE"].first.line, 2u);
  EXPECT_EQ(ids["TILE"].first.col, 9u);
  EXPECT_EQ(ids["TILE"].definedAt.col, 1u);
  ASSERT_TRUE(ids.count("PAD"));
  EXPECT_TRUE(ids["PAD"].macro);
  EXPECT_EQ(ids["PAD"].definedAt.line, 3u);
  EXPECT_EQ(ids["PAD"].definedAt.col, 3u);
  EXPECT_FALSE(ids["kBlock"].macro);
  EXPECT_EQ(ids["kBlock"].first.line, 4u);
  EXPECT_EQ(ids["kBlock"].first.col, 15u);
  EXPECT_TRUE(ids.count("x"));
  // Header names are not program identifiers; directives are not either.
  EXPECT_FALSE(ids.count("block_reduce"));
  EXPECT_FALSE(ids.count("cuh"));
  EXPECT_FALSE(ids.count("define"));
}

TEST(SourceScan, SkipsCommentsLiteralsAndNumberSuffixes) {
  auto ids = scanIdentifiers(
      "// LINE_COMMENT \\\n CONTINUED_COMMENT\n"
      "/* BLOCK\n COMMENT */ int a = 0x1Fu + 1e5f + 1'000'000ull + .5e-3f;\n"
      "const char *s = \"STRING \\\" STILL\"; char c = '\\'';\n"
      "auto r = R\"delim(RAW \" STILL_RAW)delim\"; auto w = L\"WIDE\";\n"
      "int after;\n");
  for (const char *hidden : {"LINE_COMMENT", "CONTINUED_COMMENT", "BLOCK",
                             "COMMENT", "Fu", "e5f", "ull", "STRING", "STILL",
                             "RAW", "STILL_RAW", "WIDE", "delim", "L", "R"})
    EXPECT_FALSE(ids.count(hidden)) << hidden;
  for (const char *seen : {"a", "s", "c", "r", "w", "after", "auto", "char"})
    EXPECT_TRUE(ids.count(seen)) << seen;
  EXPECT_EQ(ids["after"].first.line, 7u);
}

TEST(SourceScan, PositionOfOffset) {
  std::string text = "ab\n\tcd\nef";
  EXPECT_EQ(positionOf(text, 0).line, 1u);
  EXPECT_EQ(positionOf(text, 0).col, 1u);
  EXPECT_EQ(positionOf(text, 4).line, 2u);
  EXPECT_EQ(positionOf(text, 4).col, 2u); // the tab is one byte
  EXPECT_EQ(positionOf(text, text.size()).line, 3u);
  EXPECT_EQ(positionOf(text, text.size()).col, 3u);
}
