#include "ktune/Cuda/PtxasLog.h"

#include <gtest/gtest.h>

using namespace ktune;

// The shape of a CUDA 13 `ptxas -v` log with two entries and a callee.
static const char *Log =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function '_Z1kILi64EEvPf' for 'sm_90'\n"
    "ptxas info    : Function properties for _Z1kILi64EEvPf\n"
    "ptxas         .     304 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n"
    "ptxas info    : Used 32 registers, used 1 barriers, 1024 bytes smem, 320 bytes cumulative stack size\n"
    "ptxas info    : Compile time = 30.321 ms\n"
    "ptxas info    : Function properties for _Z6helperPfi\n"
    "ptxas         .     0 bytes stack frame, 36 bytes spill stores, 36 bytes spill loads\n"
    "ptxas info    : Compiling entry function 'plain' for 'sm_90'\n"
    "ptxas info    : Function properties for plain\n"
    "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 8 registers, used 0 barriers\n";

TEST(PtxasLog, AttributesResourcesToEachFunction) {
  auto functions = parsePtxasLog(Log);
  ASSERT_EQ(functions.count("_Z1kILi64EEvPf"), 1u);
  const auto &k = functions.at("_Z1kILi64EEvPf");
  EXPECT_TRUE(k.entry);
  EXPECT_EQ(k.registers, 32);
  EXPECT_EQ(k.barriers, 1);
  EXPECT_EQ(k.smemStatic, 1024);
  EXPECT_EQ(k.stackFrame, 304);
  EXPECT_EQ(k.cumulativeStack, 320);
  EXPECT_EQ(k.spillStores, 8);
  EXPECT_EQ(k.spillLoads, 12);

  const auto &plain = functions.at("plain");
  EXPECT_TRUE(plain.entry);
  EXPECT_EQ(plain.registers, 8);
  EXPECT_EQ(plain.smemStatic, 0);
  EXPECT_EQ(plain.spillStores, 0);

  // A device function's spills are its own, not the entry compiled before.
  const auto &helper = functions.at("_Z6helperPfi");
  EXPECT_FALSE(helper.entry);
  EXPECT_EQ(helper.spillStores, 36);
  EXPECT_EQ(helper.registers, -1);
}

TEST(PtxasLog, KeepsEachFunctionsLines) {
  auto functions = parsePtxasLog(Log);
  EXPECT_NE(functions.at("plain").log.find("Used 8 registers"), std::string::npos);
  EXPECT_EQ(functions.at("plain").log.find("Used 32 registers"), std::string::npos);
}

TEST(PtxasLog, QuotedWarningsJoinTheirFunction) {
  std::string log = std::string("ptxas info    : Overriding maximum register limit "
                                "256 for 'plain' with  32 of maxrregcount option\n") +
                    Log;
  auto functions = parsePtxasLog(log);
  EXPECT_NE(functions.at("plain").log.find("Overriding"), std::string::npos);
}

TEST(PtxasLog, IgnoresWhatItDoesNotKnow) {
  auto functions = parsePtxasLog("nvrtc: warning: something\n\nptxas fatal : x\n");
  EXPECT_TRUE(functions.empty());
}
