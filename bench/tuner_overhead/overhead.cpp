//===- overhead.cpp - What the tuner costs beyond the kernels it times ----===//
//
// 1. Compile throughput: instantiations of a bf16 template compiled per
//    second with NVRTC on every core, from an empty cache (no GPU needed).
// 2. Evaluation overhead (GPU): wall time of evaluate() on cached
//    instantiations minus the kernel time inside its timed samples
//    (reps x median): IPC, module loading, verification, warm-up and the
//    L2 flushes between repetitions.
//
// ktune-bench-overhead [--template FILE] [--jobs N] [--compile-only]
//                      [--out FILE.json]
//
//===----------------------------------------------------------------------===//
#include "ktune/Cuda/CudaEvaluator.h"
#include "ktune/Tune/KernelBinding.h"
#include "ktune/Cuda/NvrtcCompiler.h"
#include "ktune/Cuda/TimingStats.h"
#include "ktune/Cuda/WorkerClient.h"
#include "ktune/Support/FileUtil.h"
#include "ktune/Support/ThreadPool.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <unistd.h>

using namespace ktune;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

namespace {

double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

std::string freshDir() {
  std::string tmpl =
      (fs::temp_directory_path() / "ktune-bench-XXXXXX").string();
  return mkdtemp(tmpl.data()) ? tmpl : std::string();
}

TemplateParam tunable(const std::string &name, int64_t def,
                      std::vector<int64_t> values) {
  TemplateParam p;
  p.name = name;
  p.type = "int";
  p.tunable = true;
  p.kind = ParamKind::Other;
  p.defaultValue = def;
  p.domain = Domain::ofValues(std::move(values));
  return p;
}

SpecArg buffer(const std::string &name, std::vector<std::string> shape,
               Role role) {
  BufferArg b;
  b.dtype = DType::BF16;
  b.shape = std::move(shape);
  b.role = role;
  return SpecArg{name, b};
}

/// silu_and_mul<T, BLOCK_SIZE, VEC>(out, in, d), one block per token.
CudaTuneOptions siluOptions(const std::string &templatePath,
                            const std::string &cache, int jobs) {
  CudaTuneOptions o;
  o.templatePath = templatePath;
  o.templateSource = readFile(templatePath).value_or("");
  ManifestKernel k;
  k.name = "silu_and_mul";
  k.qualifiedName = "ops::silu_and_mul";
  TemplateParam t;
  t.name = "T";
  t.type = "typename";
  k.templateParams = {t, tunable("BLOCK_SIZE", 256, {64, 128, 256, 512, 1024}),
                      tunable("VEC", 4, {1, 2, 4, 8})};
  k.args = {{"out", "T *"}, {"in", "const T *"}, {"d", "int"}};
  k.launch = LaunchGeometry{{"tokens"}, {"BLOCK_SIZE"}, "0", ""};
  o.manifest.kernels = {k};
  o.kernel = k.name;
  o.spec.kernel = k.name;
  o.spec.templateArgs = {{"T", "__nv_bfloat16"}};
  o.spec.args = {buffer("out", {"tokens", "d"}, Role::Out),
                 buffer("in", {"tokens", "2 * d"}, Role::In),
                 SpecArg{"d", ScalarArg{"d", ""}}};
  o.cacheDir = cache;
  o.jobs = jobs;
  return o;
}

std::vector<Configuration> allConfigs() {
  std::vector<Configuration> out;
  for (int64_t regs : {0, 32, 64, 128})
    for (int64_t b : {64, 128, 256, 512, 1024})
      for (int64_t v : {1, 2, 4, 8})
        out.push_back({{"BLOCK_SIZE", b}, {"VEC", v}, {"maxrregcount", regs}});
  return out;
}

} // namespace

int main(int argc, char **argv) {
  std::string templatePath =
      std::string(KTUNE_SOURCE_DIR) + "/test/unit/Cuda/Inputs/silu_mul.tpl.cu";
  std::string outPath;
  int jobs = 0;
  bool compileOnly = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--template" && i + 1 < argc)
      templatePath = argv[++i];
    else if (a == "--jobs" && i + 1 < argc)
      jobs = std::atoi(argv[++i]);
    else if (a == "--out" && i + 1 < argc)
      outPath = argv[++i];
    else if (a == "--compile-only")
      compileOnly = true;
    else {
      std::fprintf(stderr,
                   "usage: %s [--template FILE] [--jobs N] "
                   "[--compile-only] [--out FILE.json]\n",
                   argv[0]);
      return 2;
    }
  }
  if (jobs <= 0)
    jobs = ThreadPool::hardwareThreads();
  auto fail = [](const Error &e) {
    std::fprintf(stderr, "ktune-bench-overhead: %s\n", e.str().c_str());
    return 1;
  };

  // The architecture: the device's, else sm_90.
  bool gpu = !compileOnly && cudaDeviceAvailable();
  std::string arch = "sm_90", device = "none";
  if (gpu) {
    auto exe = findWorkerExecutable();
    if (!exe)
      return fail(exe.error());
    auto probe = WorkerClient::start({*exe, 30, ""});
    if (!probe)
      return fail(probe.error());
    arch = (*probe)->limits().arch;
    device = (*probe)->limits().name;
  }
  nlohmann::json report{
      {"template", fs::path(templatePath).filename().string()},
      {"jobs", jobs},
      {"cores", ThreadPool::hardwareThreads()},
      {"nvrtc", nvrtcVersionString()},
      {"arch", arch},
      {"device", device}};

  // 1. Compile throughput from an empty cache: what prepare() does.
  std::string cache = freshDir();
  CudaTuneOptions options = siluOptions(templatePath, cache, jobs);
  auto binding =
      KernelBinding::create(options.manifest.kernels[0], options.spec);
  if (!binding)
    return fail(binding.error());
  std::vector<Instantiation> insts;
  for (const auto &c : allConfigs())
    insts.push_back(
        {*binding->nameExpression(c), KernelBinding::maxRegisters(c)});
  NvrtcSettings settings;
  settings.arch = arch;
  settings.cacheDir = cache;
  settings.jobs = jobs;
  settings.includePaths = {fs::path(templatePath).parent_path().string()};
  auto compiler = NvrtcCompiler::create(
      options.templateSource, fs::path(templatePath).filename().string(),
      settings);
  if (!compiler)
    return fail(compiler.error());
  auto start = Clock::now();
  auto results = (*compiler)->compileAll(insts);
  double seconds = secondsSince(start);
  int failed = 0;
  for (const auto &r : results)
    failed += r ? 0 : 1;
  CompileStats stats = (*compiler)->stats();
  double perSecond = double(insts.size()) / seconds;
  std::printf(
      "compile: %zu instantiations (%llu programs, %d failed) in %.2f s "
      "on %d threads: %.1f instantiations/s (goal >= 20/s)\n",
      insts.size(), static_cast<unsigned long long>(stats.programs), failed,
      seconds, jobs, perSecond);
  report["compile"] = {{"instantiations", insts.size()},
                       {"programs", stats.programs},
                       {"failed", failed},
                       {"seconds", seconds},
                       {"per_second", perSecond},
                       {"goal_per_second", 20}};

  // 2. Overhead per evaluation on the GPU, compiles cached.
  if (gpu) {
    auto evaluator = createCudaEvaluator(options);
    if (!evaluator)
      return fail(evaluator.error());
    Evaluator &e = **evaluator;
    Shape shape{{"tokens", 4096}, {"d", 4096}};
    // The first evaluation sets up the shape (buffers, reference): timed
    // apart, it is paid once per shape.
    auto setupStart = Clock::now();
    EvalResult first = e.evaluate(shape, binding->defaultConfig());
    double setupSeconds = secondsSince(setupStart);
    if (first.status != EvalStatus::Ok)
      std::printf("default configuration: %s\n", first.reason.c_str());
    nlohmann::json perConfig = nlohmann::json::array();
    std::vector<double> overheadMs, wallMs, kernelMs;
    int ok = 0;
    for (const auto &c : allConfigs()) {
      auto t0 = Clock::now();
      EvalResult r = e.evaluate(shape, c);
      double wall = secondsSince(t0) * 1e3;
      nlohmann::json row{{"config", c},
                         {"status", static_cast<int>(r.status)},
                         {"reason", r.reason},
                         {"wall_ms", wall}};
      if (r.time)
        row.update({{"median_us", r.time->medianUs},
                    {"iqr_us", r.time->iqrUs},
                    {"reps", r.time->reps},
                    {"graph", r.time->graphBatched}});
      perConfig.push_back(row);
      if (r.status != EvalStatus::Ok || !r.time)
        continue;
      ++ok;
      double kernel = r.time->medianUs * r.time->reps / 1e3;
      wallMs.push_back(wall);
      kernelMs.push_back(kernel);
      overheadMs.push_back(wall - kernel);
    }
    SampleSummary o = summarize(overheadMs), w = summarize(wallMs),
                  k = summarize(kernelMs);
    std::printf("evaluate: %d configurations ok; per evaluation: wall %.1f ms, "
                "kernel time in samples %.1f ms, overhead %.1f ms median "
                "(q75 %.1f ms; goal < 50 ms); first evaluation of the shape "
                "%.1f ms\n",
                ok, w.median, k.median, o.median, o.q75, setupSeconds * 1e3);
    report["evaluate"] = {
        {"configurations_ok", ok},
        {"wall_ms_median", w.median},
        {"kernel_ms_in_samples_median", k.median},
        {"overhead_ms_median", o.median},
        {"overhead_ms_q75", o.q75},
        {"goal_overhead_ms", 50},
        {"overhead_ms_max",
         overheadMs.empty()
             ? 0.0
             : *std::max_element(overheadMs.begin(), overheadMs.end())},
        {"shape_setup_seconds", setupSeconds},
        {"configurations", perConfig}};
  }
  fs::remove_all(cache);
  if (!outPath.empty())
    if (auto s = writeFileAtomically(outPath, report.dump(2) + "\n"); !s)
      return fail(s.error());
  return 0;
}
