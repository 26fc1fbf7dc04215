//===- PtxCompareTest.cpp - The self-check's PTX comparison ---------------===//

#include "PtxCompare.h"

#include <gtest/gtest.h>

using namespace ktune::refactor;

namespace {

/// A module of one kernel `_Z5scalePf` whose local depot and block label
/// carry the numbers nvcc gives by the function's place in the module.
std::string module(int place, const std::string &multiplier) {
  std::string n = std::to_string(place);
  return ".version 8.8\n.target sm_90\n.address_size 64\n\n"
         ".visible .entry _Z5scalePf(\n\t.param .u64 _Z5scalePf_param_0\n)\n{\n"
         "\t.local .align 1 .b8 \t__local_depot" + n + "[5];\n"
         "\tmov.u64 \t%SPL, __local_depot" + n + ";\n"
         "$L__BB" + n + "_1:\n"
         "\tmul.f32 \t%f2, %f1, " + multiplier + ";\n"
         "\tret;\n}\n";
}

TEST(PtxCompareTest, NumbersGivenByPlaceInTheModuleAreNoDifference) {
  EXPECT_TRUE(comparePtx(module(279, "0f40000000"), module(275, "0f40000000"))
                  .empty());
}

TEST(PtxCompareTest, AnInstructionThatDiffersIsReported) {
  auto mismatches =
      comparePtx(module(279, "0f40000000"), module(275, "0f40400000"));
  ASSERT_EQ(mismatches.size(), 1u);
  EXPECT_NE(mismatches[0].diff.find("0f40400000"), std::string::npos);
}

} // namespace
