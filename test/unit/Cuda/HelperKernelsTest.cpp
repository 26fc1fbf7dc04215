#include "ktune/Cuda/HelperKernels.h"
#include "ktune/Cuda/NvrtcCompiler.h"
#include "ktune/Support/DType.h"

#include <gtest/gtest.h>

using namespace ktune;

// The worker needs every helper from one image, for every element type.
TEST(HelperKernels, CompileIntoOneImageForEveryElementType) {
  for (const char *arch : {"sm_80", "sm_90"}) {
    NvrtcSettings s;
    s.arch = arch;
    s.jobs = 1;
    s.maxBatch = 1024;
    auto c = NvrtcCompiler::create(helperKernelSource(), "ktune_helpers.cu", s);
    ASSERT_TRUE(c) << c.error().str();
    auto insts = helperInstantiations();
    EXPECT_EQ(insts.size(), 3 * allDTypes().size());
    auto results = (*c)->compileAll(insts);
    for (size_t i = 0; i < results.size(); ++i) {
      ASSERT_TRUE(results[i]) << arch << " " << insts[i].nameExpression << ": "
                              << results[i].error().str();
      EXPECT_EQ(results[i]->imagePath, results[0]->imagePath);
    }
    EXPECT_EQ((*c)->stats().programs, 1u);
  }
  EXPECT_EQ(helperNameExpression(HelperKind::Compare, DType::BF16),
            "ktune_compare<__nv_bfloat16>");
  EXPECT_EQ(fillMode("uniform"), 1);
  EXPECT_EQ(fillMode("random"), -1);
}
