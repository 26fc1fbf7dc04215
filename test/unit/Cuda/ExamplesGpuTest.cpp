// The hand-written examples on a GPU (label gpu; skips without one).
#include "ktune/Cuda/CudaEvaluator.h"

#include "CacheDirTest.h"
#include "ExamplesTestUtil.h"

#include <gtest/gtest.h>

#include <filesystem>

using namespace ktune;
using namespace ktune::test;

namespace {

class ExamplesGpu : public CacheDirTest {
protected:
  void SetUp() override {
    if (!cudaDeviceAvailable())
      GTEST_SKIP() << "no CUDA device";
    CacheDirTest::SetUp();
  }
};

std::string describe(const EvalResult &r) {
  return "status " + std::to_string(static_cast<int>(r.status)) + ": " +
         r.reason;
}

} // namespace

TEST_F(ExamplesGpu, PlantedFaultsAreCaughtAndSurvived) {
  auto o = examplePlanted(Cache);
  ASSERT_TRUE(o.has_value()) << "examples/handwritten not found in the checkout";
  o->watchdogSeconds = 5;
  auto e = createCudaEvaluator(*o);
  ASSERT_TRUE(e) << e.error().str();
  Shape shape{{"n", 1000003}};
  // Runs one FAULT value and checks how it ends; the sound runs in between
  // show that the evaluator survived the fault before them.
  auto evalExpecting = [&](EvalStatus want, int64_t fault, int64_t block) {
    EvalResult r =
        (*e)->evaluate(shape, {{"BLOCK_SIZE", block}, {"FAULT", fault}});
    EXPECT_EQ(r.status, want) << "FAULT " << fault << ", " << describe(r);
    return r;
  };
  evalExpecting(EvalStatus::Ok, 0, 256);
  evalExpecting(EvalStatus::WrongResult, 1, 128);
  EvalResult unwritten = evalExpecting(EvalStatus::WrongResult, 2, 128);
  EXPECT_NE(unwritten.reason.find("got nan"), std::string::npos)
      << unwritten.reason;
  evalExpecting(EvalStatus::WrongResult, 3, 512);
  evalExpecting(EvalStatus::RuntimeError, 4, 128);
  evalExpecting(EvalStatus::Ok, 0, 512);
  evalExpecting(EvalStatus::Timeout, 5, 128);
  EvalResult offByOne = evalExpecting(EvalStatus::WrongResult, 6, 128);
  EXPECT_NE(offByOne.reason.find("past its end"), std::string::npos)
      << offByOne.reason;
  EvalResult after = evalExpecting(EvalStatus::Ok, 0, 128);
  EXPECT_TRUE(after.time);

  // The small shape too, after all that.
  EXPECT_EQ(
      (*e)->evaluate({{"n", 4096}}, {{"BLOCK_SIZE", 128}, {"FAULT", 0}}).status,
      EvalStatus::Ok);
}

TEST_F(ExamplesGpu, SiluAndMulBf16) {
  auto o = exampleSilu(Cache);
  ASSERT_TRUE(o.has_value()) << "examples/handwritten not found in the checkout";
  auto e = createCudaEvaluator(*o);
  ASSERT_TRUE(e) << e.error().str();
  std::vector<Configuration> configs = {
      {{"BLOCK_SIZE", 256}, {"VEC", 8}, {"UNROLL", 1}},
      {{"BLOCK_SIZE", 128}, {"VEC", 8}, {"UNROLL", 2}},
      {{"BLOCK_SIZE", 1024}, {"VEC", 4}, {"UNROLL", 4}},
      {{"BLOCK_SIZE", 64}, {"VEC", 1}, {"UNROLL", 1}},
      {{"BLOCK_SIZE", 512}, {"VEC", 2}, {"UNROLL", 1}, {"maxrregcount", 128}},
  };
  (*e)->prepare(configs);
  for (Shape shape : {Shape{{"num_tokens", 256}, {"d", 11008}},
                      Shape{{"num_tokens", 16}, {"d", 4100}}}) // scalar path
    for (const auto &c : configs) {
      EvalResult r = (*e)->evaluate(shape, c);
      EXPECT_EQ(r.status, EvalStatus::Ok) << describe(r);
      if (r.time)
        std::printf(
            "silu_and_mul tokens=%lld d=%lld B=%lld V=%lld U=%lld: %.2f us "
            "(iqr %.2f, %d reps%s)\n",
            (long long)shape.at("num_tokens"), (long long)shape.at("d"),
            (long long)c.at("BLOCK_SIZE"), (long long)c.at("VEC"),
            (long long)c.at("UNROLL"), r.time->medianUs, r.time->iqrUs,
            r.time->reps, r.time->graphBatched ? ", graph" : "");
    }
}
