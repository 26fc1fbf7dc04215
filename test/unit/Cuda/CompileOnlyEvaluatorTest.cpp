#include "ktune/Cuda/CudaEvaluator.h"
#include "ktune/Cuda/Nvcc.h"
#include "ktune/Tune/Session.h"

#include "CacheDirTest.h"
#include "CudaTestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

using namespace ktune;
using namespace ktune::test;

namespace {

class CompileOnly : public CacheDirTest {
protected:
  std::unique_ptr<Evaluator> make(CudaTuneOptions o) {
    auto e = createCompileOnlyEvaluator(o);
    EXPECT_TRUE(e) << (e ? "" : e.error().str());
    return e ? std::move(*e) : nullptr;
  }
};

const Shape Small = {{"tokens", 64}, {"d", 4096}};

} // namespace

TEST_F(CompileOnly, ReportsResourcesWithoutRunning) {
  auto e = make(siluOptions(Cache));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->arch(), "sm_90");
  EXPECT_NE(e->device().find("sm_90"), std::string::npos);
  EvalResult r = e->evaluate(Small, {{"BLOCK_SIZE", 256}, {"VEC", 4}});
  EXPECT_EQ(r.status, EvalStatus::Ok) << r.reason;
  EXPECT_FALSE(r.time);
  EXPECT_GT(r.resources.registers, 0);
  EXPECT_EQ(r.resources.smemStatic, 0);
  EXPECT_EQ(r.resources.threadsPerBlock, 256);
  EXPECT_GT(r.resources.blocksPerSM, 0);
  EXPECT_GT(r.compileMs, 0.0);
}

TEST_F(CompileOnly, PrunesCompileErrorsAndLimits) {
  auto e = make(siluOptions(Cache));
  ASSERT_TRUE(e);
  EvalResult tooBig = e->evaluate(Small, {{"BLOCK_SIZE", 2048}, {"VEC", 4}});
  EXPECT_EQ(tooBig.status, EvalStatus::Pruned);
  EXPECT_NE(tooBig.reason.find("2048"), std::string::npos) << tooBig.reason;
  EXPECT_EQ(tooBig.compileMs, 0.0); // pruned before compiling

  EvalResult bad = e->evaluate(Small, {{"BLOCK_SIZE", 256}, {"VEC", 16}});
  EXPECT_EQ(bad.status, EvalStatus::CompileError);
  EXPECT_NE(bad.reason.find("VEC must be in 1..8"), std::string::npos)
      << bad.reason;

  EvalResult unknown = e->evaluate(Small, {{"TILE", 4}});
  EXPECT_EQ(unknown.status, EvalStatus::CompileError);
  EXPECT_NE(unknown.reason.find("TILE"), std::string::npos);
}

TEST_F(CompileOnly, PrunesByConstraint) {
  auto o = siluOptions(Cache);
  o.spec.constraints = {"BLOCK_SIZE * VEC <= d"};
  auto e = make(o);
  EvalResult r = e->evaluate({{"tokens", 1}, {"d", 256}},
                             {{"BLOCK_SIZE", 128}, {"VEC", 4}});
  EXPECT_EQ(r.status, EvalStatus::Pruned);
  EXPECT_NE(r.reason.find("BLOCK_SIZE * VEC <= d"), std::string::npos);
}

TEST_F(CompileOnly, PreparedBatchesComeFromTheCacheLater) {
  std::vector<Configuration> all;
  for (int64_t b : {64, 128, 256, 512})
    for (int64_t v : {1, 2, 4, 8})
      all.push_back({{"BLOCK_SIZE", b}, {"VEC", v}});
  {
    auto e = make(siluOptions(Cache));
    e->prepare(all);
    for (const auto &c : all)
      EXPECT_EQ(e->evaluate(Small, c).status, EvalStatus::Ok);
  }
  auto later = make(siluOptions(Cache)); // another run: everything cached
  for (const auto &c : all) {
    EvalResult r = later->evaluate(Small, c);
    EXPECT_EQ(r.status, EvalStatus::Ok);
    EXPECT_EQ(r.compileMs, 0.0);
    EXPECT_GT(r.resources.registers, 0);
  }
}

TEST_F(CompileOnly, UsesTheArchitecturesLimits) {
  ElementwiseKernel k{"staged_copy", "ELEMS", 256, 16, {16, 64, 128}};
  auto o = elementwiseOptions(k, 1 << 20, Cache);
  o.manifest.kernels[0].launch->smem = "BLOCK * ELEMS * 4";
  o.manifest.kernels[0].launch->grid = {"ceil_div(n, BLOCK * ELEMS)"};
  Shape shape{{"n", 1 << 20}};
  Configuration big{{"BLOCK", 256}, {"ELEMS", 64}};   // 64 KB dynamic
  Configuration huge{{"BLOCK", 256}, {"ELEMS", 128}}; // 128 KB dynamic

  auto hopper = make(o);
  EvalResult r = hopper->evaluate(shape, big);
  EXPECT_EQ(r.status, EvalStatus::Ok) << r.reason;
  EXPECT_EQ(r.resources.smemDynamic, 64 * 1024);
  EXPECT_EQ(hopper->evaluate(shape, huge).status, EvalStatus::Ok);

  o.arch = "sm_86";
  auto ampere = make(o);
  EXPECT_EQ(ampere->arch(), "sm_86");
  EXPECT_EQ(ampere->evaluate(shape, big).status, EvalStatus::Ok);
  EvalResult tooMuch = ampere->evaluate(shape, huge);
  EXPECT_EQ(tooMuch.status, EvalStatus::Pruned);
  EXPECT_NE(tooMuch.reason.find("shared memory"), std::string::npos)
      << tooMuch.reason;
}

TEST_F(CompileOnly, SearchesMaxRegisterCaps) {
  ElementwiseKernel k{"many_registers", "ACC", 128, 48, {16, 48}};
  auto e = make(elementwiseOptions(k, 1 << 16, Cache));
  Shape shape{{"n", 1 << 16}};
  EvalResult free = e->evaluate(shape, {{"BLOCK", 1024}, {"ACC", 48}});
  EvalResult capped =
      e->evaluate(shape, {{"BLOCK", 1024}, {"ACC", 48}, {"maxrregcount", 32}});
  ASSERT_EQ(capped.status, EvalStatus::Ok) << capped.reason;
  EXPECT_LE(capped.resources.registers, 32);
  // Without the cap, 1024 threads may not fit the register file; either way
  // the cap must not report more registers than the uncapped build.
  EXPECT_LE(capped.resources.registers, free.resources.registers);
}

TEST(CompileOnlyErrors, BadOptionsAreErrorsNotCrashes) {
  auto o = siluOptions("");
  o.arch = "sm_75"; // no static limits
  EXPECT_FALSE(createCompileOnlyEvaluator(o));
  o = siluOptions("");
  o.kernel = "rmsnorm";
  auto e = createCompileOnlyEvaluator(o);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message.find("rmsnorm"), std::string::npos);
}

TEST(CudaDevice, AvailabilityProbeIsSafe) {
  // Without a driver the worker cannot start; the probe says so instead of
  // failing, and the GPU evaluator reports an error.
  bool available = cudaDeviceAvailable();
  EXPECT_EQ(available, cudaDeviceAvailable()); // cached
  if (!available) {
    auto e = createCudaEvaluator(siluOptions(""));
    ASSERT_FALSE(e);
    EXPECT_FALSE(e.error().message.empty());
  }
}

TEST(CreateEvaluator, TheOneFactoryOfKtuneTuneAndKtuneRun) {
  CudaTuneOptions o = siluOptions("");
  EvaluatorRequest r;
  r.compileOnly = true;
  r.templatePath = o.templatePath;
  r.templateSource = o.templateSource;
  r.manifest = &o.manifest;
  r.kernel = o.kernel;
  r.spec = &o.spec;
  r.jobs = 2;
  r.arch = "sm_90";
  auto compileOnly = createEvaluator(r);
  ASSERT_TRUE(compileOnly) << compileOnly.error().str();
  EXPECT_EQ((*compileOnly)->arch(), "sm_90");
  EvalResult result = (*compileOnly)->evaluate(Small, {{"BLOCK_SIZE", 256}});
  EXPECT_EQ(result.status, EvalStatus::Ok) << result.reason;
  EXPECT_FALSE(result.time);

  r.compileOnly = false;
  if (!cudaDeviceAvailable()) {
    auto gpu = createEvaluator(r);
    ASSERT_FALSE(gpu);
    EXPECT_NE(gpu.error().message.find("--compile-only"), std::string::npos);
  }
}

namespace {

/// hh::axpy<BLOCK, VEC> of Inputs/host_headers.tpl.cu, which NVRTC cannot
/// compile; the manifest carries the project's flags.
CudaTuneOptions hostHeadersOptions(const std::string &cacheDir) {
  CudaTuneOptions o = templateOptions("host_headers.tpl.cu", cacheDir);
  ManifestKernel mk = kernelNamed("axpy", "hh::axpy");
  mk.templateParams = {tunable("BLOCK", 128, {64, 128, 256}, "block_size"),
                       tunable("VEC", 1, {1, 2, 3}, "vector_width")};
  mk.args = {{"y", "float *"},
             {"x", "const float *"},
             {"n", "const uint", "unsigned int", ""},
             {"mode", "Mode", "unsigned char", "hh::Mode"},
             {"offset", "int64_t", "long", ""}};
  mk.launch = LaunchGeometry{{"ceil_div(n, BLOCK * VEC)"}, {"BLOCK"}, "0", ""};
  o.manifest.kernels = {mk};
  o.manifest.compile = CompileCommandInfo{
      ".", {"-O3", "--expt-relaxed-constexpr", "-DNDEBUG"}, "nvcc"};
  o.kernel = o.spec.kernel = "axpy";
  o.spec.dims = {{"n", {100000}}};
  o.spec.args = {bufferArg("y", DType::F32, {"n"}, Role::Out),
                 bufferArg("x", DType::F32, {"n"}, Role::In),
                 scalarArg("n", "n"), scalarArg("mode", "1"),
                 scalarArg("offset", "-2")};
  return o;
}

bool haveNvcc() { return findNvcc() != "nvcc"; }

} // namespace

TEST_F(CompileOnly, AutoTakesNvrtcWhereItCompilesTheDefault) {
  CudaTuneOptions o = siluOptions(Cache);
  // The project's flags: what NVRTC takes reaches it, what only concerns
  // the host is listed.
  o.manifest.compile =
      CompileCommandInfo{".", {"-O3", "-DKTUNE_TEST=1"}, "nvcc"};
  auto e = make(o);
  ASSERT_TRUE(e);
  CompilerReport c = e->compiler();
  EXPECT_EQ(c.backend, "nvrtc");
  EXPECT_EQ(c.reason, "NVRTC compiles the default configuration");
  EXPECT_NE(std::find(c.options.begin(), c.options.end(), "-DKTUNE_TEST=1"),
            c.options.end());
  EXPECT_EQ(c.dropped, std::vector<std::string>({"-O3"}));
  EXPECT_TRUE(c.command.starts_with("nvrtc ")) << c.command;
  EXPECT_NE(c.command.find("-DKTUNE_TEST=1"), std::string::npos) << c.command;
  EXPECT_EQ(c.calls, 1u); // the default, compiled to choose
}

TEST_F(CompileOnly, AFlagNvrtcCannotHonourMovesTheBuildToNvcc) {
  if (!haveNvcc())
    GTEST_SKIP() << "no nvcc";
  CudaTuneOptions o = siluOptions(Cache);
  o.manifest.compile = CompileCommandInfo{
      ".", {"-O3", "--expt-relaxed-constexpr", "-DKTUNE_TEST=1"}, "nvcc"};
  auto e = make(o);
  ASSERT_TRUE(e);
  CompilerReport c = e->compiler();
  EXPECT_EQ(c.backend, "nvcc");
  EXPECT_EQ(c.reason,
            "NVRTC cannot honour --expt-relaxed-constexpr: nvcc builds with it");
  EXPECT_NE(c.command.find("--expt-relaxed-constexpr"), std::string::npos)
      << c.command;
}

TEST_F(CompileOnly, AutoTakesNvccWhereNvrtcCannotCompileTheDefault) {
  if (!haveNvcc())
    GTEST_SKIP() << "no nvcc";
  auto e = make(hostHeadersOptions(Cache));
  ASSERT_TRUE(e);
  CompilerReport c = e->compiler();
  EXPECT_EQ(c.backend, "nvcc");
  // The project's --expt-relaxed-constexpr, which NVRTC cannot honour,
  // decides before NVRTC is tried.
  EXPECT_EQ(c.reason,
            "NVRTC cannot honour --expt-relaxed-constexpr: nvcc builds with it");
  EXPECT_NE(
      std::find(c.options.begin(), c.options.end(), "--expt-relaxed-constexpr"),
      c.options.end());
  // Scalar types from the manifest: uint, int64_t and the enum.
  EvalResult r = e->evaluate({{"n", 100000}}, {{"BLOCK", 256}, {"VEC", 2}});
  EXPECT_EQ(r.status, EvalStatus::Ok) << r.reason;
  EXPECT_GT(r.resources.registers, 0);
  r = e->evaluate({{"n", 100000}}, {{"BLOCK", 64}, {"VEC", 3}});
  EXPECT_EQ(r.status, EvalStatus::CompileError);
  EXPECT_NE(r.reason.find("VEC = 3 is not a vector width"), std::string::npos);
}

TEST_F(CompileOnly, AForcedCompilerThatCannotCompileTheDefaultIsAnError) {
  CudaTuneOptions o = hostHeadersOptions(Cache);
  o.compiler = CompilerChoice::Nvrtc;
  o.compilerChoiceFrom = "--compiler";
  // A project flag NVRTC cannot honour: refused, never dropped.
  auto e = createCompileOnlyEvaluator(o);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message.find(
                "NVRTC cannot honour --expt-relaxed-constexpr (--compiler asks "
                "for NVRTC)"),
            std::string::npos)
      << e.error().str();
  // Without it, NVRTC's own first message at its file:line.
  o.manifest.compile.reset();
  e = createCompileOnlyEvaluator(o);
  ASSERT_FALSE(e);
  EXPECT_TRUE(e.error().where.starts_with(o.templatePath + ":"))
      << e.error().str();
  EXPECT_NE(e.error().message.find("the default configuration (hh::axpy<128, "
                                   "1>) does not compile with nvrtc"),
            std::string::npos)
      << e.error().str();
  if (!haveNvcc())
    return;
  // nvcc without the project's --expt-relaxed-constexpr: its message.
  o.compiler = CompilerChoice::Nvcc;
  e = createCompileOnlyEvaluator(o);
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().where, o.templatePath + ":18") << e.error().str();
  EXPECT_NE(e.error().message.find("--expt-relaxed-constexpr"),
            std::string::npos);
  // The flags given to the tool replace the manifest's.
  o.projectCommand =
      CompileCommandInfo{".", {"--expt-relaxed-constexpr"}, "nvcc"};
  e = createCompileOnlyEvaluator(o);
  ASSERT_TRUE(e) << e.error().str();
  EXPECT_EQ((*e)->compiler().reason, "nvcc, as --compiler asks");
}
