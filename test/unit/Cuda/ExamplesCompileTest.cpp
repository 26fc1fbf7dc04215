// The hand-written example templates compile for every configuration of
// their manifests, without a GPU.
#include "ktune/Cuda/CudaEvaluator.h"

#include "CacheDirTest.h"
#include "ExamplesTestUtil.h"

#include <gtest/gtest.h>

#include <filesystem>

using namespace ktune;
using namespace ktune::test;

namespace {
class ExamplesCompileOnly : public CacheDirTest {};
} // namespace

TEST_F(ExamplesCompileOnly, SiluAndMulEveryConfiguration) {
  auto o = exampleSilu(Cache);
  ASSERT_TRUE(o.has_value()) << "examples/handwritten not found in the checkout";
  auto e = createCompileOnlyEvaluator(*o);
  ASSERT_TRUE(e) << e.error().str();
  std::vector<Configuration> configs;
  for (int64_t b : {64, 128, 256, 512, 1024})
    for (int64_t v : {1, 2, 4, 8})
      for (int64_t u : {1, 2, 4})
        configs.push_back({{"BLOCK_SIZE", b}, {"VEC", v}, {"UNROLL", u}});
  configs.push_back(
      {{"BLOCK_SIZE", 256}, {"VEC", 8}, {"UNROLL", 1}, {"maxrregcount", 32}});
  (*e)->prepare(configs);
  Shape shape{{"num_tokens", 256}, {"d", 11008}};
  int ok = 0, pruned = 0;
  for (const auto &c : configs) {
    EvalResult r = (*e)->evaluate(shape, c);
    if (c.count("maxrregcount")) {
      // The kernel has __launch_bounds__, which override --maxrregcount:
      // the capped configuration is the uncapped code, never timed twice.
      if (r.status == EvalStatus::Ok) {
        EXPECT_LE(r.resources.registers, 32);
      } else {
        EXPECT_EQ(r.status, EvalStatus::Pruned);
        EXPECT_NE(r.reason.find("no effect"), std::string::npos) << r.reason;
      }
    } else if (r.status == EvalStatus::Ok) {
      ++ok;
      EXPECT_GT(r.resources.registers, 0);
    } else {
      // Only the manifest's constraint may keep a configuration out.
      EXPECT_EQ(r.status, EvalStatus::Pruned) << r.reason;
      EXPECT_NE(r.reason.find("16384"), std::string::npos) << r.reason;
      EXPECT_GT(c.at("BLOCK_SIZE") * c.at("VEC") * c.at("UNROLL"), 16384);
      ++pruned;
    }
  }
  EXPECT_GT(ok, 40);
  EXPECT_GT(pruned, 0);
}

TEST_F(ExamplesCompileOnly, PlantedFaultsEveryValue) {
  auto o = examplePlanted(Cache);
  ASSERT_TRUE(o.has_value()) << "examples/handwritten not found in the checkout";
  auto e = createCompileOnlyEvaluator(*o);
  ASSERT_TRUE(e) << e.error().str();
  for (int64_t fault = 0; fault <= 6; ++fault)
    for (int64_t block : {128, 256, 512}) {
      EvalResult r = (*e)->evaluate({{"n", 4096}},
                                    {{"BLOCK_SIZE", block}, {"FAULT", fault}});
      EXPECT_EQ(r.status, EvalStatus::Ok)
          << fault << " " << block << ": " << r.reason;
    }
}
