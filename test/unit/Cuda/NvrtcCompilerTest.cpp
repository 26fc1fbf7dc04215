#include "ktune/Cuda/NvrtcCompiler.h"

#include "ktune/Support/FileUtil.h"

#include "CudaTestUtil.h"

#include <gtest/gtest.h>

#include <filesystem>

using namespace ktune;
using namespace ktune::test;

namespace {

std::string siluSource() { return *readFile(inputPath("silu_mul.tpl.cu")); }
std::string kernelsSource() { return *readFile(inputPath("kernels.tpl.cu")); }

Instantiation silu(int block, int vec, int maxRegs = 0) {
  return {"ops::silu_and_mul<__nv_bfloat16, " + std::to_string(block) + ", " +
              std::to_string(vec) + ">",
          maxRegs};
}

std::unique_ptr<NvrtcCompiler> makeCompiler(const std::string &source,
                                            const std::string &cacheDir,
                                            int jobs = 1,
                                            const std::string &arch = "sm_90") {
  NvrtcSettings s;
  s.arch = arch;
  s.cacheDir = cacheDir;
  s.jobs = jobs;
  auto c = NvrtcCompiler::create(source, "test.tpl.cu", s);
  EXPECT_TRUE(c) << (c ? "" : c.error().str());
  return c ? std::move(*c) : nullptr;
}

} // namespace

TEST(NvrtcCompiler, CompilesBf16TemplateToCubinWithoutGpu) {
  auto dir = freshDir("ktune-nvrtc");
  auto c = makeCompiler(siluSource(), dir);
  ASSERT_TRUE(c);
  auto k = c->get(silu(256, 4));
  ASSERT_TRUE(k) << k.error().str();
  EXPECT_FALSE(k->isPtx);
  EXPECT_FALSE(k->fromCache);
  EXPECT_TRUE(k->loweredName.starts_with("_ZN3ops12silu_and_mul")) << k->loweredName;
  EXPECT_GT(k->resources.registers, 0);
  EXPECT_GT(k->compileMs, 0.0);
  auto image = readFile(k->imagePath);
  ASSERT_TRUE(image);
  ASSERT_GT(image->size(), 4u);
  EXPECT_EQ(image->substr(0, 4), "\x7f" "ELF");
  std::filesystem::remove_all(dir);
}

TEST(NvrtcCompiler, AttributesResourcesWithinOneProgram) {
  auto dir = freshDir("ktune-nvrtc");
  auto c = makeCompiler(kernelsSource(), dir, /*jobs=*/1);
  ASSERT_TRUE(c);
  std::vector<Instantiation> insts = {
      {"reverse_tile<64>", 0}, {"reverse_tile<128>", 0}, {"reverse_tile<256>", 0}};
  auto results = c->compileAll(insts);
  EXPECT_EQ(c->stats().programs, 1u); // one header parse for the batch
  int expected[] = {256, 512, 1024};
  for (size_t i = 0; i < results.size(); ++i) {
    ASSERT_TRUE(results[i]) << results[i].error().str();
    EXPECT_EQ(results[i]->resources.smemStatic, expected[i]) << insts[i].nameExpression;
    EXPECT_EQ(results[i]->resources.barriers, 1);
    EXPECT_EQ(results[i]->imagePath, results[0]->imagePath);
  }
  EXPECT_NE(results[0]->loweredName, results[1]->loweredName);
  std::filesystem::remove_all(dir);
}

TEST(NvrtcCompiler, OneBadInstantiationDoesNotFailTheBatch) {
  auto dir = freshDir("ktune-nvrtc");
  auto c = makeCompiler(siluSource(), dir, 1);
  ASSERT_TRUE(c);
  auto results = c->compileAll({silu(128, 1), silu(128, 16), silu(128, 2), silu(128, 4)});
  ASSERT_EQ(results.size(), 4u);
  EXPECT_TRUE(results[0]);
  ASSERT_FALSE(results[1]);
  EXPECT_NE(results[1].error().message.find("VEC must be in 1..8"), std::string::npos)
      << results[1].error().message;
  EXPECT_TRUE(results[2]);
  EXPECT_TRUE(results[3]);
  EXPECT_EQ(c->stats().failures, 1u);
  std::filesystem::remove_all(dir);
}

TEST(NvrtcCompiler, NothingIsCompiledTwiceAcrossRuns) {
  auto dir = freshDir("ktune-nvrtc");
  std::vector<Instantiation> insts = {silu(64, 1), silu(256, 8), silu(512, 16)};
  {
    auto first = makeCompiler(siluSource(), dir, 2);
    ASSERT_TRUE(first);
    auto r = first->compileAll(insts);
    EXPECT_EQ(first->stats().instantiations, 3u);
    EXPECT_EQ(first->stats().cacheHits, 0u);
    // Asking again in the same run compiles nothing either.
    auto again = first->compileAll(insts);
    EXPECT_EQ(first->stats().instantiations, 3u);
  }
  auto second = makeCompiler(siluSource(), dir, 2); // a later run
  ASSERT_TRUE(second);
  auto r = second->compileAll(insts);
  CompileStats s = second->stats();
  EXPECT_EQ(s.programs, 0u);
  EXPECT_EQ(s.instantiations, 0u);
  EXPECT_EQ(s.cacheHits, 3u);
  ASSERT_TRUE(r[0]);
  EXPECT_TRUE(r[0]->fromCache);
  EXPECT_EQ(r[0]->compileMs, 0.0);
  EXPECT_GT(r[0]->resources.registers, 0);
  ASSERT_FALSE(r[2]); // the compile error comes from the cache too
  EXPECT_NE(r[2].error().message.find("VEC must be in 1..8"), std::string::npos);

  // Another source is another key.
  auto edited = makeCompiler(siluSource() + "\n// edited\n", dir, 1);
  edited->get(silu(64, 1));
  EXPECT_EQ(edited->stats().instantiations, 1u);
  std::filesystem::remove_all(dir);
}

// With a driver installed, NVRTC may take a program it compiled before from
// the driver's compute cache, without ptxas's report: every compile must
// still report resources.
TEST(NvrtcCompiler, RecompilingAProgramStillReportsResources) {
  for (int run = 0; run < 2; ++run) {
    auto c = makeCompiler(kernelsSource(), "", 1);
    auto k = c->get({"reverse_tile<128>", 0});
    ASSERT_TRUE(k) << k.error().str();
    EXPECT_GT(k->resources.registers, 0) << "run " << run << ":\n" << k->log;
    EXPECT_EQ(k->resources.smemStatic, 512) << "run " << run;
  }
}

TEST(NvrtcCompiler, KeysDependOnOptionsAndArch) {
  auto dir = freshDir("ktune-nvrtc");
  auto sm90 = makeCompiler(siluSource(), dir, 1, "sm_90");
  auto sm80 = makeCompiler(siluSource(), dir, 1, "sm_80");
  EXPECT_NE(sm90->cacheKey(silu(64, 1)), sm90->cacheKey(silu(64, 1, 32)));
  EXPECT_NE(sm90->cacheKey(silu(64, 1)), sm80->cacheKey(silu(64, 1)));
  EXPECT_NE(sm90->cacheKey(silu(64, 1)), sm90->cacheKey(silu(64, 2)));
  EXPECT_EQ(sm90->cacheKey(silu(64, 1)), sm90->cacheKey(silu(64, 1)));
  auto opts = sm90->options(40);
  EXPECT_NE(std::find(opts.begin(), opts.end(), "--maxrregcount=40"), opts.end());
  EXPECT_NE(std::find(opts.begin(), opts.end(), "--ptxas-options=-v"), opts.end());
  std::filesystem::remove_all(dir);
}

TEST(NvrtcCompiler, MaxRegistersCapsTheKernel) {
  auto dir = freshDir("ktune-nvrtc");
  auto c = makeCompiler(kernelsSource(), dir, 2);
  auto free = c->get({"many_registers<128, 48>", 0});
  auto capped = c->get({"many_registers<128, 48>", 32});
  ASSERT_TRUE(free) << free.error().str();
  ASSERT_TRUE(capped) << capped.error().str();
  EXPECT_GT(free->resources.registers, 32);
  EXPECT_LE(capped->resources.registers, 32);
  EXPECT_NE(free->imagePath, capped->imagePath);
  std::filesystem::remove_all(dir);
}

TEST(NvrtcCompiler, CompilesManyConfigurationsInParallel) {
  auto dir = freshDir("ktune-nvrtc");
  auto c = makeCompiler(siluSource(), dir, 2);
  std::vector<Instantiation> insts;
  for (int block : {64, 128, 256, 512})
    for (int vec : {1, 2, 4})
      insts.push_back(silu(block, vec));
  auto results = c->compileAll(insts);
  for (size_t i = 0; i < results.size(); ++i)
    EXPECT_TRUE(results[i]) << insts[i].nameExpression;
  EXPECT_GE(c->stats().programs, 2u);
  EXPECT_LT(c->stats().programs, insts.size()); // batched
  std::filesystem::remove_all(dir);
}

TEST(NvrtcCompiler, PtxForVirtualArchitectures) {
  auto c = makeCompiler(siluSource(), "", 1, "compute_90");
  ASSERT_TRUE(c);
  auto k = c->get(silu(128, 2));
  ASSERT_TRUE(k) << k.error().str();
  EXPECT_TRUE(k->isPtx);
  auto text = readFile(k->imagePath);
  ASSERT_TRUE(text);
  EXPECT_NE(text->find(".entry " + k->loweredName), std::string::npos);
  EXPECT_EQ(k->resources.registers, -1);
}

TEST(NvrtcCompiler, RejectsUnknownArchitectures) {
  NvrtcSettings s;
  s.arch = "sm_11";
  EXPECT_FALSE(NvrtcCompiler::create("", "x.cu", s));
  s.arch = "gfx90a";
  EXPECT_FALSE(NvrtcCompiler::create("", "x.cu", s));
}

TEST(NvrtcCompiler, FindsTheCudaHeaders) {
  auto dirs = cudaIncludeDirs();
  ASSERT_FALSE(dirs.empty());
  EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(dirs[0]) / "cuda_bf16.h"))
      << dirs[0];
}
