//===- CreateEvaluator.cpp - Building the GPU and compile-only evaluators -===//
//
// The kernel's binding, the compilers (the template's, chosen by
// ChooseCompiler.h, and the verification helpers'), the architecture to
// compile for, the worker, and createEvaluator: the one way ktune-tune and
// `ktune run` get an evaluator.
//
//===----------------------------------------------------------------------===//
#include "ChooseCompiler.h"
#include "CudaEvaluatorImpl.h"

#include "ktune/Cuda/HelperKernels.h"
#include "ktune/Support/DType.h"
#include "ktune/Support/FileUtil.h"
#include "ktune/Support/Try.h"
#include "ktune/Tune/Session.h"

#include <algorithm>
#include <cstdlib>
#include <mutex>

namespace ktune {

using nlohmann::json;

namespace {

Expected<const ManifestKernel *> findKernel(const CudaTuneOptions &o) {
  std::string name = o.kernel.empty() ? o.spec.kernel : o.kernel;
  if (name.empty()) {
    if (o.manifest.kernels.size() == 1)
      return &o.manifest.kernels.front();
    return makeError("the manifest has several kernels: name one");
  }
  const ManifestKernel *k = o.manifest.findKernel(name);
  if (!k)
    return makeError("the manifest has no kernel '" + name + "'");
  return k;
}

/// The manifest kernel bound to the spec's buffers, values and launch.
Expected<KernelBinding> bindKernel(const CudaTuneOptions &o) {
  KTUNE_TRY_ASSIGN(auto kernel, findKernel(o));
  auto binding = KernelBinding::create(*kernel, o.spec);
  if (!binding)
    return std::unexpected(withContext(binding.error(), "spec"));
  return binding;
}

/// Compiles the helper kernels into one image and names them for the worker.
Expected<std::pair<std::unique_ptr<NvrtcCompiler>, json>>
compileHelpers(const std::string &arch, const std::string &cacheDir) {
  NvrtcSettings s;
  s.arch = arch;
  s.cacheDir = cacheDir;
  s.jobs = 1; // one program: one image for all helpers
  s.maxBatch = 1024;
  auto compiler =
      NvrtcCompiler::create(helperKernelSource(), "ktune_helpers.cu", s);
  if (!compiler)
    return std::unexpected(compiler.error());
  auto insts = helperInstantiations();
  auto results = (*compiler)->compileAll(insts);
  for (size_t i = 0; i < results.size(); ++i)
    if (!results[i])
      return makeError("the verification kernel " + insts[i].nameExpression +
                       " does not compile for " + arch + ": " +
                       results[i].error().str());
  json fill = json::object(), compare = json::object(),
       readPair = json::object();
  std::string image;
  size_t i = 0;
  for (const auto &info : allDTypes()) {
    for (HelperKind kind :
         {HelperKind::Fill, HelperKind::Compare, HelperKind::ReadPair}) {
      const auto &r = results[i++];
      if (!image.empty() && r->imagePath != image)
        return makeError("the verification kernels were compiled into several "
                         "images");
      image = r->imagePath;
      json &table = kind == HelperKind::Fill      ? fill
                    : kind == HelperKind::Compare ? compare
                                                  : readPair;
      table[std::string(info.name)] = r->loweredName;
    }
  }
  json helpers{
      {"helper_image", image},
      {"helpers",
       {{"fill", fill}, {"compare", compare}, {"read_pair", readPair}}}};
  return std::make_pair(std::move(*compiler), helpers);
}

/// The architecture to compile for on this device: the device's own when
/// NVRTC knows it, else PTX for the newest architecture it knows below.
Expected<std::string> deviceArch(const DeviceLimits &limits,
                                 const std::string &requested) {
  if (!requested.empty()) {
    KTUNE_TRY_ASSIGN(auto want, parseArch(requested));
    bool runs =
        requested.starts_with("compute_")
            ? (want[0] * 10 + want[1] <= limits.ccMajor * 10 + limits.ccMinor)
            : (want[0] == limits.ccMajor && want[1] <= limits.ccMinor);
    if (!runs)
      return makeError("code for " + requested + " does not run on " +
                       limits.name + " (" + limits.arch + ")");
    return requested;
  }
  auto supported = nvrtcSupportedArchs();
  if (supported.empty() || std::find(supported.begin(), supported.end(),
                                     limits.arch) != supported.end())
    return limits.arch;
  int device = limits.ccMajor * 10 + limits.ccMinor, best = 0;
  for (const auto &a : supported)
    if (auto cc = parseArch(a); cc && (*cc)[0] * 10 + (*cc)[1] <= device)
      best = std::max(best, (*cc)[0] * 10 + (*cc)[1]);
  if (best == 0)
    return makeError(nvrtcVersionString() + " cannot compile for " +
                     limits.arch);
  return "compute_" + std::to_string(best);
}

} // namespace

int cudaDeviceCount() {
  static std::once_flag once;
  static int count = 0;
  std::call_once(once, [] {
    if (const char *off = std::getenv("KTUNE_NO_GPU");
        off && *off && *off != '0')
      return;
    auto exe = findWorkerExecutable();
    if (!exe)
      return;
    WorkerClient::Settings s;
    s.executable = *exe;
    s.watchdogSeconds = 30;
    s.stderrPath = "/dev/null";
    auto client = WorkerClient::start(s);
    count = client ? (*client)->devices() : 0;
  });
  return count;
}

bool cudaDeviceAvailable() { return cudaDeviceCount() > 0; }

Expected<std::unique_ptr<Evaluator>>
createCudaEvaluator(const CudaTuneOptions &options) {
  KTUNE_TRY_ASSIGN(auto binding, bindKernel(options));
  KTUNE_TRY_ASSIGN(auto exe, findWorkerExecutable());
  WorkerClient::Settings settings;
  settings.executable = exe;
  settings.watchdogSeconds = options.watchdogSeconds;
  if (options.gpu >= 0)
    settings.environment["KTUNE_DEVICE"] = std::to_string(options.gpu);
  auto worker = WorkerClient::start(settings);
  if (!worker)
    return std::unexpected(worker.error());
  if ((*worker)->devices() == 0)
    return makeError("no CUDA device is visible to the worker");
  DeviceLimits limits = (*worker)->limits();
  KTUNE_TRY_ASSIGN(auto arch, deviceArch(limits, options.arch));
  KTUNE_TRY_ASSIGN(
      auto chosen,
      chooseCompiler(options, binding,
                     options.spec.launcherMode ? limits.arch : arch));
  KTUNE_TRY_ASSIGN(auto helpers, compileHelpers(arch, options.cacheDir));
  return std::unique_ptr<Evaluator>(std::make_unique<CudaEvaluator>(
      options, std::move(binding), std::move(chosen.compiler),
      std::move(chosen.report), std::move(helpers.first), std::move(limits),
      std::move(*worker), std::move(helpers.second), settings, false));
}

Expected<std::unique_ptr<Evaluator>>
createCompileOnlyEvaluator(const CudaTuneOptions &options) {
  KTUNE_TRY_ASSIGN(auto binding, bindKernel(options));
  std::string arch = options.arch.empty() ? "sm_90" : options.arch;
  KTUNE_TRY_ASSIGN(auto limits, staticDeviceLimits(arch));
  KTUNE_TRY_ASSIGN(auto chosen, chooseCompiler(options, binding, arch));
  return std::unique_ptr<Evaluator>(std::make_unique<CudaEvaluator>(
      options, std::move(binding), std::move(chosen.compiler),
      std::move(chosen.report), nullptr, std::move(limits), nullptr, json(),
      WorkerClient::Settings{}, true));
}

Expected<std::unique_ptr<Evaluator>>
createEvaluator(const EvaluatorRequest &request) {
  CudaTuneOptions o;
  o.templatePath = request.templatePath;
  o.templateSource = request.templateSource;
  o.manifest = *request.manifest;
  o.kernel = request.kernel;
  o.spec = *request.spec;
  o.cacheDir = request.cacheDir;
  o.jobs = request.jobs;
  o.arch = request.arch;
  o.gpu = request.gpu;
  o.compiler = request.compiler;
  o.compilerChoiceFrom = request.compilerChoiceFrom;
  o.projectCommand = request.projectCommand;
  o.includeDirs = request.includeDirs;
  o.nvrtcIncludeDirs = request.nvrtcIncludeDirs;
  if (request.compileOnly)
    return createCompileOnlyEvaluator(o);
  if (!cudaDeviceAvailable())
    return makeError("no usable CUDA device here: run with --compile-only to "
                     "compile every configuration and report registers, "
                     "spills and shared memory without a GPU");
  return createCudaEvaluator(o);
}

} // namespace ktune
