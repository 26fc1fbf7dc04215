//===- CudaEvaluatorGpuTest.cpp - The evaluator on a real GPU -------------===//
//
// Label `gpu`: each test skips itself when no CUDA device is usable.
//
//===----------------------------------------------------------------------===//
#include "ktune/Cuda/CudaEvaluator.h"
#include "ktune/Cuda/Ncu.h"
#include "ktune/Cuda/NvrtcCompiler.h"
#include "ktune/Cuda/WorkerClient.h"
#include "ktune/Support/DType.h"
#include "ktune/Target/Occupancy.h"

#include "CacheDirTest.h"
#include "CudaTestUtil.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

using namespace ktune;
using namespace ktune::test;

namespace {

#define SKIP_WITHOUT_GPU()                                                     \
  do {                                                                         \
    if (!cudaDeviceAvailable())                                                \
      GTEST_SKIP() << "no CUDA device";                                        \
  } while (false)

class Gpu : public CacheDirTest {
protected:
  std::unique_ptr<Evaluator> make(const CudaTuneOptions &o) {
    auto e = createCudaEvaluator(o);
    EXPECT_TRUE(e) << (e ? "" : e.error().str());
    return e ? std::move(*e) : nullptr;
  }

  static std::string describe(const EvalResult &r) {
    std::string s = "status " + std::to_string(static_cast<int>(r.status)) +
                    " reason '" + r.reason + "'";
    if (r.time)
      s += " median " + std::to_string(r.time->medianUs) + " us iqr " +
           std::to_string(r.time->iqrUs) + " reps " +
           std::to_string(r.time->reps);
    return s;
  }
};

ElementwiseKernel planted() {
  return {"scale", "FAULT", 128, 0, {0, 1, 2, 3, 4, 5, 6}};
}
constexpr int64_t PlantedN = 100003; // not a multiple of any block size
const Shape PlantedShape = {{"n", PlantedN}};

Configuration fault(int64_t f, int64_t block = 128) {
  return {{"BLOCK", block}, {"FAULT", f}};
}

} // namespace

TEST_F(Gpu, DefaultConfigurationVerifiesAndTimes) {
  SKIP_WITHOUT_GPU();
  auto e = make(elementwiseOptions(planted(), PlantedN, Cache));
  ASSERT_TRUE(e);
  EXPECT_FALSE(e->device().empty());
  EXPECT_TRUE(e->arch().starts_with("sm_") ||
              e->arch().starts_with("compute_"));
  EvalResult r = e->evaluate(PlantedShape, fault(0));
  ASSERT_EQ(r.status, EvalStatus::Ok) << describe(r);
  ASSERT_TRUE(r.time);
  EXPECT_GT(r.time->medianUs, 0.0);
  EXPECT_GE(r.time->reps, 10);
  EXPECT_TRUE(r.time->coldL2);
  EXPECT_GT(r.resources.blocksPerSM, 0);
  for (int64_t block : {32, 256, 1024})
    EXPECT_EQ(e->evaluate(PlantedShape, fault(0, block)).status, EvalStatus::Ok)
        << block;
}

TEST_F(Gpu, ProfilingMeasuresEachConfigurationUnderNsightCompute) {
  SKIP_WITHOUT_GPU();
  auto ncu = findNsightCompute();
  if (!ncu)
    GTEST_SKIP() << ncu.error().str();
  auto e = make(elementwiseOptions(planted(), PlantedN, Cache));
  ASSERT_TRUE(e);
  // The tuning worker keeps its shape across the profiling.
  ASSERT_EQ(e->evaluate(PlantedShape, fault(0)).status, EvalStatus::Ok);
  ProfileRequest request{*ncu, Cache + "/profile.csv"};
  auto counters =
      e->profile(PlantedShape, {fault(0, 128), fault(0, 1024)}, request);
  ASSERT_TRUE(counters) << counters.error().str();
  ASSERT_EQ(counters->size(), 2u);
  for (const auto &c : *counters) {
    EXPECT_EQ(c.launches, 1);
    // Caches are flushed: the input (n floats) comes from DRAM.
    EXPECT_GT(c.dramReadBytes, 0.9 * 4 * PlantedN);
    EXPECT_GT(c.achievedOccupancyPct, 0);
    EXPECT_LE(c.achievedOccupancyPct, 100.5);
    EXPECT_GT(c.durationUs, 0);
    EXPECT_GT(c.registers, 0);
  }
  EXPECT_EQ(e->evaluate(PlantedShape, fault(0, 256)).status, EvalStatus::Ok);
}

TEST_F(Gpu, VerificationCatchesPlantedFaults) {
  SKIP_WITHOUT_GPU();
  auto e = make(elementwiseOptions(planted(), PlantedN, Cache));
  ASSERT_TRUE(e);
  EvalResult wrong = e->evaluate(PlantedShape, fault(1));
  EXPECT_EQ(wrong.status, EvalStatus::WrongResult) << describe(wrong);
  EXPECT_NE(wrong.reason.find("'out': 1 of 100003"), std::string::npos)
      << wrong.reason;
  EXPECT_NE(wrong.reason.find("index 50001"), std::string::npos)
      << wrong.reason;

  EvalResult unwritten = e->evaluate(PlantedShape, fault(2));
  EXPECT_EQ(unwritten.status, EvalStatus::WrongResult) << describe(unwritten);
  EXPECT_NE(unwritten.reason.find("got nan"), std::string::npos)
      << unwritten.reason;

  EvalResult nan = e->evaluate(PlantedShape, fault(3));
  EXPECT_EQ(nan.status, EvalStatus::WrongResult) << describe(nan);
  EXPECT_NE(nan.reason.find("index 7"), std::string::npos) << nan.reason;
  EXPECT_FALSE(nan.time);

  // The evaluator is still fine afterwards.
  EXPECT_EQ(e->evaluate(PlantedShape, fault(0, 256)).status, EvalStatus::Ok);
}

TEST_F(Gpu, FaultsKillOnlyTheWorker) {
  SKIP_WITHOUT_GPU();
  auto o = elementwiseOptions(planted(), PlantedN, Cache);
  o.watchdogSeconds = 5;
  auto e = make(o);
  ASSERT_TRUE(e);
  ASSERT_EQ(e->evaluate(PlantedShape, fault(0)).status, EvalStatus::Ok);

  EvalResult oob = e->evaluate(PlantedShape, fault(4));
  EXPECT_EQ(oob.status, EvalStatus::RuntimeError) << describe(oob);
  EvalResult afterOob = e->evaluate(PlantedShape, fault(0, 64));
  EXPECT_EQ(afterOob.status, EvalStatus::Ok) << describe(afterOob);

  EvalResult trap = e->evaluate(PlantedShape, fault(6));
  EXPECT_EQ(trap.status, EvalStatus::RuntimeError) << describe(trap);

  auto start = std::chrono::steady_clock::now();
  EvalResult hang = e->evaluate(PlantedShape, fault(5));
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  EXPECT_EQ(hang.status, EvalStatus::Timeout) << describe(hang);
  EXPECT_LT(seconds, 60.0);

  // Later configurations are evaluated normally, wrong ones still caught.
  EXPECT_EQ(e->evaluate(PlantedShape, fault(0, 512)).status, EvalStatus::Ok);
  EXPECT_EQ(e->evaluate(PlantedShape, fault(1, 512)).status,
            EvalStatus::WrongResult);
}

TEST_F(Gpu, ReferenceKernelChecksTheDefaultToo) {
  SKIP_WITHOUT_GPU();
  auto o = elementwiseOptions(planted(), PlantedN, Cache);
  o.spec.referenceKernel = "scale_reference";
  o.spec.launch = LaunchGeometry{{"ceil_div(n, BLOCK)"}, {"BLOCK"}, "0", ""};
  auto e = make(o);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->evaluate(PlantedShape, fault(0)).status, EvalStatus::Ok);
  EXPECT_EQ(e->evaluate(PlantedShape, fault(1, 256)).status,
            EvalStatus::WrongResult);

  // A default that is itself wrong is caught against the reference kernel.
  auto wrongDefault =
      elementwiseOptions({"scale", "FAULT", 128, 1, {0, 1}}, PlantedN, Cache);
  wrongDefault.spec.referenceKernel = "scale_reference";
  auto e2 = make(wrongDefault);
  ASSERT_TRUE(e2);
  EXPECT_EQ(e2->evaluate(PlantedShape, fault(1)).status,
            EvalStatus::WrongResult);
  EXPECT_EQ(e2->evaluate(PlantedShape, fault(0)).status, EvalStatus::Ok);
}

TEST_F(Gpu, AFailingDefaultLeavesNoReference) {
  SKIP_WITHOUT_GPU();
  auto o =
      elementwiseOptions({"scale", "FAULT", 128, 4, {0, 4}}, PlantedN, Cache);
  auto e = make(o);
  ASSERT_TRUE(e);
  EvalResult def = e->evaluate(PlantedShape, fault(4));
  EXPECT_EQ(def.status, EvalStatus::RuntimeError) << describe(def);
  EvalResult other = e->evaluate(PlantedShape, fault(0));
  EXPECT_EQ(other.status, EvalStatus::RuntimeError) << describe(other);
  EXPECT_NE(other.reason.find("no reference"), std::string::npos)
      << other.reason;
}

TEST_F(Gpu, InOutBuffersAreRestoredBeforeEveryRun) {
  SKIP_WITHOUT_GPU();
  ElementwiseKernel k{"accumulate", "UNUSED", 128, 0, {0}};
  auto o = elementwiseOptions(k, PlantedN, Cache);
  auto &mk = o.manifest.kernels[0];
  mk.templateParams.pop_back();
  mk.args = {{"acc", "float *"}, {"x", "const float *"}, {"n", "int"}};
  o.spec.args = {bufferArg("acc", DType::F32, {"n"}, Role::InOut),
                 bufferArg("x", DType::F32, {"n"}, Role::In),
                 scalarArg("n", "n")};
  auto e = make(o);
  ASSERT_TRUE(e);
  // Each evaluation runs the kernel many times (verify, warm-up, timing);
  // without restoring, acc would drift and the next check would fail.
  for (int64_t block : {128, 256, 128, 64}) {
    EvalResult r = e->evaluate(PlantedShape, {{"BLOCK", block}});
    EXPECT_EQ(r.status, EvalStatus::Ok) << block << ": " << describe(r);
  }
}

TEST_F(Gpu, IntegerOutputsAreCheckedForUnwrittenElements) {
  SKIP_WITHOUT_GPU();
  ElementwiseKernel k{"int_affine", "SKIP_LAST", 128, 0, {0, 1}};
  auto o = elementwiseOptions(k, PlantedN, Cache);
  o.manifest.kernels[0].args = {
      {"out", "int *"}, {"in", "const int *"}, {"n", "int"}};
  o.spec.args = {bufferArg("out", DType::I32, {"n"}, Role::Out),
                 bufferArg("in", DType::I32, {"n"}, Role::In, "uniform"),
                 scalarArg("n", "n")};
  std::get<BufferArg>(o.spec.args[1].arg).low = -1000;
  std::get<BufferArg>(o.spec.args[1].arg).high = 1000;
  auto e = make(o);
  ASSERT_TRUE(e);
  EXPECT_EQ(
      e->evaluate(PlantedShape, {{"BLOCK", 256}, {"SKIP_LAST", 0}}).status,
      EvalStatus::Ok);
  EvalResult skip =
      e->evaluate(PlantedShape, {{"BLOCK", 256}, {"SKIP_LAST", 1}});
  EXPECT_EQ(skip.status, EvalStatus::WrongResult) << describe(skip);
}

TEST_F(Gpu, Bf16TemplateEndToEnd) {
  SKIP_WITHOUT_GPU();
  auto e = make(siluOptions(Cache));
  ASSERT_TRUE(e);
  Shape shape{{"tokens", 64}, {"d", 4096}};
  std::vector<Configuration> configs;
  for (int64_t b : {64, 128, 256, 512, 1024})
    for (int64_t v : {1, 2, 4, 8})
      configs.push_back({{"BLOCK_SIZE", b}, {"VEC", v}});
  e->prepare(configs);
  for (const auto &c : configs) {
    EvalResult r = e->evaluate(shape, c);
    EXPECT_EQ(r.status, EvalStatus::Ok)
        << c.at("BLOCK_SIZE") << "x" << c.at("VEC") << ": " << describe(r);
  }
  EXPECT_EQ(e->evaluate(shape, {{"BLOCK_SIZE", 256}, {"VEC", 16}}).status,
            EvalStatus::CompileError);
  EXPECT_EQ(e->evaluate(shape, {{"BLOCK_SIZE", 2048}, {"VEC", 1}}).status,
            EvalStatus::Pruned);
}

TEST_F(Gpu, DynamicSharedMemoryOver48KB) {
  SKIP_WITHOUT_GPU();
  ElementwiseKernel k{"staged_copy", "ELEMS", 256, 16, {16, 64, 128}};
  auto o = elementwiseOptions(k, 1 << 22, Cache);
  o.manifest.kernels[0].launch->smem = "BLOCK * ELEMS * 4";
  o.manifest.kernels[0].launch->grid = {"ceil_div(n, BLOCK * ELEMS)"};
  auto e = make(o);
  ASSERT_TRUE(e);
  Shape shape{{"n", 1 << 22}};
  EvalResult r = e->evaluate(shape, {{"BLOCK", 256}, {"ELEMS", 64}});
  EXPECT_EQ(r.status, EvalStatus::Ok) << describe(r);
  EXPECT_EQ(r.resources.smemDynamic, 64 * 1024);
  EXPECT_EQ(e->evaluate(shape, {{"BLOCK", 256}, {"ELEMS", 16}}).status,
            EvalStatus::Ok);
}

TEST_F(Gpu, OccupancyModelAgreesWithTheDriver) {
  SKIP_WITHOUT_GPU();
  auto exe = findWorkerExecutable();
  ASSERT_TRUE(exe);
  auto client = WorkerClient::start({*exe, 10, ""});
  ASSERT_TRUE(client) << client.error().str();
  DeviceLimits limits = (*client)->limits();
  auto table = staticDeviceLimits(limits.arch);
  if (table) {
    EXPECT_EQ(limits.maxThreadsPerSM, table->maxThreadsPerSM);
    EXPECT_EQ(limits.maxBlocksPerSM, table->maxBlocksPerSM);
    EXPECT_EQ(limits.regsPerSM, table->regsPerSM);
    EXPECT_EQ(limits.smemPerBlockOptin, table->smemPerBlockOptin);
    EXPECT_EQ(limits.smemPerSM, table->smemPerSM);
    EXPECT_EQ(limits.reservedSmemPerBlock, table->reservedSmemPerBlock);
  }
  std::printf("device: %s\n", deviceLimitsToJson(limits).dump().c_str());

  ElementwiseKernel k{"many_registers", "ACC", 128, 16, {4, 16, 48}};
  auto o = elementwiseOptions(k, 1 << 16, Cache);
  auto e = make(o);
  ASSERT_TRUE(e);
  Shape shape{{"n", 1 << 16}};
  int compared = 0;
  for (int64_t block : {32, 96, 128, 256, 512, 1024})
    for (int64_t acc : {4, 16, 48}) {
      // ACC changes the function, so only the default's ACC verifies; the
      // driver's occupancy comes back from the run either way.
      EvalResult r = e->evaluate(shape, {{"BLOCK", block}, {"ACC", acc}});
      if (r.status != EvalStatus::Ok && r.status != EvalStatus::WrongResult)
        continue;
      Occupancy model = computeOccupancy(
          limits, {block, r.resources.registers, r.resources.smemStatic, 0, 0});
      EXPECT_EQ(model.blocksPerSM, r.resources.blocksPerSM)
          << "BLOCK " << block << " ACC " << acc << " regs "
          << r.resources.registers << " smem " << r.resources.smemStatic
          << " compile " << r.compileMs << " ms; " << describe(r);
      ++compared;
    }
  EXPECT_GT(compared, 10);

  // The compiler's own report on this machine, instantiation by
  // instantiation (the evaluator also takes the driver's count after load).
  NvrtcSettings settings;
  settings.arch = limits.arch;
  auto compiler =
      NvrtcCompiler::create(o.templateSource, "kernels.tpl.cu", settings);
  ASSERT_TRUE(compiler);
  for (int64_t block : {32, 1024})
    for (int64_t acc : {4, 48}) {
      auto k = (*compiler)->get({"many_registers<" + std::to_string(block) +
                                     ", " + std::to_string(acc) + ">",
                                 0});
      ASSERT_TRUE(k) << k.error().str();
      EXPECT_GT(k->resources.registers, 0) << block << " " << acc << " log:\n"
                                           << k->log;
    }
}

TEST_F(Gpu, TimingIsRepeatableAndSeesTheL2) {
  SKIP_WITHOUT_GPU();
  // 8 Mi floats in and out: 64 MiB, larger than the L2 when cold, and a
  // kernel long enough to be timed launch by launch.
  const int64_t big = 8 << 20;
  auto o = elementwiseOptions(planted(), big, Cache);
  auto e = make(o);
  ASSERT_TRUE(e);
  Shape shape{{"n", big}};
  EvalResult a = e->evaluate(shape, fault(0, 256));
  EvalResult b = e->evaluate(shape, fault(0, 256));
  ASSERT_EQ(a.status, EvalStatus::Ok) << describe(a);
  ASSERT_EQ(b.status, EvalStatus::Ok) << describe(b);
  EXPECT_FALSE(a.time->graphBatched);
  double spread =
      std::abs(a.time->medianUs - b.time->medianUs) / a.time->medianUs;
  EXPECT_LT(spread, 0.05) << describe(a) << " vs " << describe(b);

  // 1 Mi floats in and out (8 MiB) fit in the L2: warm launches are faster.
  const int64_t small = 1 << 20;
  auto cold = make(elementwiseOptions(planted(), small, Cache));
  auto warmOptions = elementwiseOptions(planted(), small, Cache);
  warmOptions.coldL2 = false;
  auto warm = make(warmOptions);
  Shape smallShape{{"n", small}};
  EvalResult c = cold->evaluate(smallShape, fault(0, 256));
  EvalResult w = warm->evaluate(smallShape, fault(0, 256));
  ASSERT_EQ(c.status, EvalStatus::Ok) << describe(c);
  ASSERT_EQ(w.status, EvalStatus::Ok) << describe(w);
  EXPECT_TRUE(c.time->coldL2);
  EXPECT_FALSE(w.time->coldL2);
  std::printf(
      "8 MiB copy: cold %.2f us (batched %d), warm %.2f us (batched %d)\n",
      c.time->medianUs, c.time->graphBatched, w.time->medianUs,
      w.time->graphBatched);
  EXPECT_LT(w.time->medianUs, c.time->medianUs)
      << describe(w) << " vs " << describe(c);
}

TEST_F(Gpu, TinyKernelsAreTimedAsGraphBatches) {
  SKIP_WITHOUT_GPU();
  auto e = make(elementwiseOptions(planted(), 4096, Cache));
  ASSERT_TRUE(e);
  Shape shape{{"n", 4096}};
  EvalResult a = e->evaluate(shape, fault(0, 128));
  ASSERT_EQ(a.status, EvalStatus::Ok) << describe(a);
  EXPECT_TRUE(a.time->graphBatched);
  EXPECT_GT(a.time->medianUs, 0.3);
  EXPECT_LT(a.time->medianUs, 20.0);
  EvalResult b = e->evaluate(shape, fault(0, 128));
  double spread =
      std::abs(a.time->medianUs - b.time->medianUs) / a.time->medianUs;
  EXPECT_LT(spread, 0.10) << describe(a) << " vs " << describe(b);
}

TEST_F(Gpu, RetimeInterleavesConfigurations) {
  SKIP_WITHOUT_GPU();
  const int64_t n = 4 << 20;
  auto e = make(elementwiseOptions(planted(), n, Cache));
  ASSERT_TRUE(e);
  Shape shape{{"n", n}};
  std::vector<Configuration> configs = {fault(0, 128), fault(0, 256),
                                        fault(1, 256), fault(0, 1024)};
  auto results = e->retime(shape, configs);
  ASSERT_EQ(results.size(), configs.size());
  for (size_t i : {0u, 1u, 3u}) {
    ASSERT_EQ(results[i].status, EvalStatus::Ok) << describe(results[i]);
    EXPECT_EQ(results[i].time->reps, 100) << describe(results[i]);
  }
  EXPECT_EQ(results[2].status, EvalStatus::WrongResult);
  EXPECT_FALSE(results[2].time);
}

TEST_F(Gpu, SeveralShapes) {
  SKIP_WITHOUT_GPU();
  auto e = make(elementwiseOptions(planted(), 1000, Cache));
  ASSERT_TRUE(e);
  for (int64_t n : {1000, 1, 777777, 1000})
    for (int64_t block : {64, 256}) {
      EvalResult r = e->evaluate({{"n", n}}, fault(0, block));
      EXPECT_EQ(r.status, EvalStatus::Ok) << n << ": " << describe(r);
      EXPECT_EQ(e->evaluate({{"n", n}}, fault(1, block)).status,
                EvalStatus::WrongResult)
          << n;
    }
}

TEST_F(Gpu, EveryElementTypeIsFilledAndCompared) {
  SKIP_WITHOUT_GPU();
  const int64_t n = 30001;
  for (const auto &info : allDTypes()) {
    ElementwiseKernel k{"convert", "WRONG", 128, 0, {0, 1}};
    auto o = elementwiseOptions(k, n, Cache);
    auto &mk = o.manifest.kernels[0];
    mk.templateParams.insert(mk.templateParams.begin(),
                             {fixedParam("TIN"), fixedParam("TOUT")});
    mk.args = {{"out", "TOUT *"}, {"in", "const TIN *"}, {"n", "int"}};
    std::string type(info.cudaType);
    o.spec.templateArgs = {{"TIN", type}, {"TOUT", type}};
    o.spec.args = {bufferArg("out", info.type, {"n"}, Role::Out),
                   bufferArg("in", info.type, {"n"}, Role::In),
                   scalarArg("n", "n")};
    if (!info.isFloat) { // small non-negative integers fit every integer type
      std::get<BufferArg>(o.spec.args[1].arg).low = 0;
      std::get<BufferArg>(o.spec.args[1].arg).high = 20;
    }
    auto e = make(o);
    ASSERT_TRUE(e) << info.name;
    Shape shape{{"n", n}};
    EvalResult ok = e->evaluate(shape, {{"BLOCK", 256}, {"WRONG", 0}});
    EXPECT_EQ(ok.status, EvalStatus::Ok) << info.name << ": " << describe(ok);
    EvalResult wrong = e->evaluate(shape, {{"BLOCK", 256}, {"WRONG", 1}});
    EXPECT_EQ(wrong.status, EvalStatus::WrongResult)
        << info.name << ": " << describe(wrong);
    EXPECT_NE(wrong.reason.find("index 10000"), std::string::npos)
        << info.name << ": " << wrong.reason;
  }
}

TEST_F(Gpu, TheNvccBackendBuildsWhatTheWorkerLoadsAndVerifies) {
  SKIP_WITHOUT_GPU();
  // The same kernels through nvcc: fatbin images, device functions found by
  // their relocations; the planted faults are caught as with NVRTC.
  CudaTuneOptions o = elementwiseOptions(planted(), PlantedN, Cache);
  o.compiler = CompilerChoice::Nvcc;
  auto e = make(o);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->compiler().backend, "nvcc");
  EvalResult ok = e->evaluate(PlantedShape, fault(0, 256));
  ASSERT_EQ(ok.status, EvalStatus::Ok) << describe(ok);
  ASSERT_TRUE(ok.time);
  EXPECT_GT(ok.resources.registers, 0);
  EXPECT_EQ(e->evaluate(PlantedShape, fault(1)).status,
            EvalStatus::WrongResult);
  EXPECT_GE(e->compiler().calls, 1u);
}

TEST_F(Gpu, AutoChoosesNvrtcWhenItCompilesTheDefault) {
  SKIP_WITHOUT_GPU();
  auto e = make(elementwiseOptions(planted(), PlantedN, Cache));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->compiler().backend, "nvrtc");
  EXPECT_EQ(e->compiler().reason, "NVRTC compiles the default configuration");
}

TEST_F(Gpu, LauncherArgumentsOfManifestTypesReachTheLauncher) {
  SKIP_WITHOUT_GPU();
  // test/lit/Inputs/tune/enum_launcher: int64_t num_tokens and an enum
  // dtype without an underlying type; the launcher refuses all but bf16.
  std::string dir = std::string(KTUNE_SOURCE_DIR) + "/test/lit/Inputs/tune/";
  auto mj = readJsonFile(dir + "enum_launcher.tpl.json");
  auto sj = readJsonFile(dir + "enum_launcher.spec.json");
  ASSERT_TRUE(mj && sj);
  auto manifest = manifestFromJson(*mj);
  auto spec = specFromJson(*sj);
  ASSERT_TRUE(manifest && spec);
  ASSERT_TRUE(addLauncherEntry(*manifest, spec->kernel));
  auto resolved = resolveSpec(*spec, manifest->kernels.front());
  ASSERT_TRUE(resolved) << resolved.error().str();
  CudaTuneOptions o;
  o.templatePath = dir + "enum_launcher.tpl.cu";
  o.templateSource = *readFile(o.templatePath);
  o.manifest = *manifest;
  o.kernel = spec->kernel;
  o.spec = *resolved;
  o.cacheDir = Cache;
  auto e = make(o);
  ASSERT_TRUE(e);
  const Shape shape = {{"num_tokens", 64}, {"d", 4096}};
  EvalResult r = e->evaluate(shape, {{"BLOCK_CAP", 256}});
  ASSERT_EQ(r.status, EvalStatus::Ok) << describe(r);
  // A dtype the launcher refuses: the default itself fails.
  for (auto &a : o.spec.args)
    if (a.name == "dtype")
      std::get<ScalarArg>(a.arg).value = "0";
  auto bad = make(o);
  ASSERT_TRUE(bad);
  r = bad->evaluate(shape, {{"BLOCK_CAP", 1024}});
  EXPECT_EQ(r.status, EvalStatus::RuntimeError) << describe(r);
  EXPECT_NE(r.reason.find("cudaErrorInvalidValue"), std::string::npos)
      << describe(r);
}
