// The first compiler message and its place, from NVRTC's, nvcc's and host
// compilers' logs, and from the one-line reasons ktune stores.
#include "ktune/Support/CompilerMessage.h"

#include <gtest/gtest.h>

using namespace ktune;

TEST(CompilerMessage, ReadsNvccAndHostCompilerPlaces) {
  auto m = parseCompilerMessage(
      "/t/k.tpl.cu(12): error: identifier \"uint\" is undefined");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->where, "/t/k.tpl.cu:12");
  EXPECT_EQ(m->message, "error: identifier \"uint\" is undefined");
  m = parseCompilerMessage("k.cpp:7:3: error: expected ';'");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->where, "k.cpp:7");
  EXPECT_EQ(m->message, "error: expected ';'");
  EXPECT_FALSE(parseCompilerMessage("1 error detected in the compilation"));
  EXPECT_FALSE(parseCompilerMessage(""));
}

TEST(CompilerMessage, FindsTheFirstErrorInALogOrAReason) {
  std::string log = "k.tpl.cu(3): warning: unused variable\n"
                    "k.tpl.cu(9): error: static assertion failed\n"
                    "k.tpl.cu(11): error: second\n";
  auto m = firstCompilerError(log);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->where, "k.tpl.cu:9");
  // A stored reason: messages joined by " | ", after a prefix.
  m = firstCompilerError("compile error: k.tpl.cu(4): error: bad | "
                         "k.tpl.cu(5): error: worse");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->where, "k.tpl.cu:4");
  EXPECT_EQ(m->message, "error: bad");
  EXPECT_FALSE(firstCompilerError("nvcc timed out after 900 s"));
}

TEST(CompilerMessage, QuotesErrorsElseTheLastLines) {
  EXPECT_EQ(firstCompilerErrors("a\nb error c\nd\ne error f\n", 1),
            "b error c");
  EXPECT_EQ(firstCompilerErrors("one\ntwo\nthree\n", 2), "two\nthree");
  EXPECT_EQ(firstCompilerErrors(""), "the compiler failed with no output");
}
