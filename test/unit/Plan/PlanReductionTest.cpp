#include "ktune/Plan/PlanReduction.h"

#include <gtest/gtest.h>

using namespace ktune;

namespace {

Plan twoKernels() {
  Plan plan;
  plan.planner = "heuristic";
  PlanKernel a;
  a.kernel = "encode";
  a.params.push_back(PlanParam{"BLOCK_SIZE", ParamKind::BlockSize});
  a.params.push_back(PlanParam{"ITEMS", ParamKind::ItemsPerThread});
  a.constraints = {"BLOCK_SIZE <= 1024", "ITEMS * 4 <= 64",
                   "MY_BLOCK_SIZE_X >= 1"};
  PlanKernel b;
  b.kernel = "serialize";
  b.params.push_back(PlanParam{"BLOCK_SIZE", ParamKind::BlockSize});
  b.constraints = {"BLOCK_SIZE % 32 == 0"};
  plan.kernels = {a, b};
  return plan;
}

} // namespace

TEST(PlanReductionTest, DropsTheNamedParameterAndTheConstraintsNamingIt) {
  std::string dropped;
  auto out = withoutParamNamedIn(
      twoKernels(),
      "plan: kernels[0].params[0].name: 'BLOCK_SIZE' is also a parameter of "
      "another planned kernel",
      &dropped);
  ASSERT_TRUE(out);
  EXPECT_EQ(dropped, "encode: BLOCK_SIZE");
  ASSERT_EQ(out->kernels.size(), 2u);
  ASSERT_EQ(out->kernels[0].params.size(), 1u);
  EXPECT_EQ(out->kernels[0].params[0].name, "ITEMS");
  // Whole words only: MY_BLOCK_SIZE_X is another name.
  EXPECT_EQ(
      out->kernels[0].constraints,
      (std::vector<std::string>{"ITEMS * 4 <= 64", "MY_BLOCK_SIZE_X >= 1"}));
  // The other kernel's parameter of the same name stays.
  EXPECT_EQ(out->kernels[1].params[0].name, "BLOCK_SIZE");
  EXPECT_EQ(out->kernels[1].constraints.size(), 1u);
}

TEST(PlanReductionTest, AKernelLosingItsLastParameterLeavesThePlan) {
  auto out = withoutParamNamedIn(
      twoKernels(),
      "plan: kernels[1].params[0]: k.cu:12: edits overlap (two parameters "
      "change the same source text)");
  ASSERT_TRUE(out);
  ASSERT_EQ(out->kernels.size(), 1u);
  EXPECT_EQ(out->kernels[0].kernel, "encode");
}

TEST(PlanReductionTest, AMessageNamingNoParameterOfThePlanGivesNothing) {
  EXPECT_FALSE(withoutParamNamedIn(twoKernels(), "cannot parse k.cu"));
  EXPECT_FALSE(withoutParamNamedIn(twoKernels(),
                                   "plan: kernels[2].params[0]: out of range"));
  EXPECT_FALSE(withoutParamNamedIn(twoKernels(),
                                   "plan: kernels[1].params[1].name: bad"));
}
