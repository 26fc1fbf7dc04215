// Spellings nvcc accepts and Clang does not
// (lib/Refactor/Parse/ParseInternal.h).
#include "Parse/ParseInternal.h"

#include <gtest/gtest.h>

using namespace ktune::refactor;

TEST(SpacedChevrons, JoinedInPlace) {
  EXPECT_EQ(joinSpacedLaunchChevrons("k << < g, b >> > (x);"),
            "k <<<  g, b >>>  (x);");
  // The gap keeps its characters (a newline stays a newline).
  EXPECT_EQ(joinSpacedLaunchChevrons("k <<\n< g, f(b) >>\t> (x);"),
            "k <<<\n g, f(b) >>>\t (x);");
  // Only the opener spaced: the closer is already whole.
  EXPECT_EQ(joinSpacedLaunchChevrons("k << <g, b>>>(x);"), "k <<< g, b>>>(x);");
}

TEST(SpacedChevrons, LengthAlwaysKept) {
  std::string text = "void f() { k << <  n / 2, 64 >>  > (a[i >> 1]); }";
  auto joined = joinSpacedLaunchChevrons(text);
  ASSERT_TRUE(joined);
  EXPECT_EQ(joined->size(), text.size());
}

TEST(SpacedChevrons, OtherCodeUntouched) {
  EXPECT_EQ(joinSpacedLaunchChevrons("k<<<g, b>>>(x);"), std::nullopt);
  EXPECT_EQ(joinSpacedLaunchChevrons(
                "template std::ostream &operator<< <int>(std::ostream &);"),
            std::nullopt);
  EXPECT_EQ(joinSpacedLaunchChevrons("std::vector<std::vector<int>> > v;"),
            std::nullopt);
  EXPECT_EQ(joinSpacedLaunchChevrons("int a = b << c; // k << < g >> > ()"),
            std::nullopt);
  EXPECT_EQ(joinSpacedLaunchChevrons("const char *s = \"k << < g >> >\";"),
            std::nullopt);
}
