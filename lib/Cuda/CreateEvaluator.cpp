//===- CreateEvaluator.cpp - Building the GPU and compile-only evaluators -===//
//
// The kernel's binding, the NVRTC compilers (the template's and the
// verification helpers'), the architecture to compile for, the worker, and
// createEvaluator: the one way ktune-tune and `ktune run` get an evaluator.
//
//===----------------------------------------------------------------------===//
#include "CudaEvaluatorImpl.h"

#include "ktune/Cuda/HelperKernels.h"
#include "ktune/Support/DType.h"
#include "ktune/Support/FileUtil.h"
#include "ktune/Support/Try.h"
#include "ktune/Tune/Session.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <mutex>

namespace ktune {

namespace fs = std::filesystem;
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

Expected<std::string> templateSource(const CudaTuneOptions &o) {
  if (!o.templateSource.empty())
    return o.templateSource;
  if (o.templatePath.empty())
    return makeError("no template source and no template path");
  return readFile(o.templatePath);
}

NvrtcSettings compilerSettings(const CudaTuneOptions &o,
                               const std::string &arch) {
  NvrtcSettings s;
  s.arch = arch;
  if (!o.templatePath.empty()) {
    fs::path dir = fs::path(o.templatePath).parent_path();
    // The manifest's include directories first (rewritten project headers
    // under include/; relative to the manifest, which is beside the
    // template), then the template's directory.
    for (const auto &d : o.manifest.includeDirs)
      s.includePaths.push_back(fs::path(d).is_absolute()
                                   ? d
                                   : (dir / d).lexically_normal().string());
    s.includePaths.push_back(dir.empty() ? "." : dir.string());
  }
  // The project's include directories and macros (the manifest's compile
  // command): what the template's project headers need.
  if (o.manifest.compile) {
    std::vector<std::string> flags = projectNvccFlags(*o.manifest.compile);
    for (size_t i = 0; i < flags.size(); ++i) {
      const std::string &f = flags[i];
      bool next = i + 1 < flags.size();
      if ((f == "-I" || f == "-isystem") && next)
        s.includePaths.push_back(flags[++i]);
      else if (f.starts_with("-I"))
        s.includePaths.push_back(f.substr(2));
      else if (f.starts_with("-isystem"))
        s.includePaths.push_back(f.substr(8));
      else if ((f == "-D" || f == "-U") && next)
        s.extraOptions.push_back(f + flags[++i]);
      else if (f.starts_with("-D") || f.starts_with("-U"))
        s.extraOptions.push_back(f);
    }
  }
  s.extraOptions = o.spec.compileOptions;
  s.cacheDir = o.cacheDir;
  s.jobs = o.jobs;
  return s;
}

std::string sourceName(const CudaTuneOptions &o) {
  return o.templatePath.empty() ? "kernel.tpl.cu"
                                : fs::path(o.templatePath).filename().string();
}

/// The compiler of the template's instantiations for `arch`.
Expected<std::unique_ptr<NvrtcCompiler>>
templateCompiler(const CudaTuneOptions &o, const std::string &arch) {
  KTUNE_TRY_ASSIGN(auto source, templateSource(o));
  return NvrtcCompiler::create(source, sourceName(o),
                               compilerSettings(o, arch));
}

/// Launcher mode: nvcc builds each configuration of the launcher into a
/// module, with the project's flags and the rewritten headers first.
Expected<std::unique_ptr<LauncherCompiler>>
launcherCompiler(const CudaTuneOptions &o, const std::string &arch) {
  if (!o.spec.launcherMode)
    return nullptr;
  if (!o.spec.maxRegisters.empty())
    return makeError("a register cap cannot be applied through a launcher: "
                     "drop \"max_registers\" in launcher mode",
                     "max_registers");
  LauncherModuleSettings s;
  s.arch = arch.starts_with("compute_") ? "sm_" + arch.substr(8) : arch;
  s.templatePath = fs::absolute(o.templatePath).string();
  auto source = templateSource(o);
  if (!source)
    return std::unexpected(source.error());
  s.templateSource = *source;
  fs::path base = fs::absolute(o.templatePath).parent_path();
  for (const auto &d : o.manifest.includeDirs)
    s.includeDirs.push_back(
        fs::path(d).is_absolute() ? d : (base / d).lexically_normal().string());
  if (o.manifest.compile)
    s.projectFlags = projectNvccFlags(*o.manifest.compile);
  s.extraFlags = o.spec.compileOptions;
  s.cacheDir = o.cacheDir;
  s.jobs = o.jobs;
  if (const ManifestLauncher *l = o.manifest.findLauncher(o.spec.kernel);
      l && !l->kernels.empty())
    s.kernelName = l->kernels.front();
  return LauncherCompiler::create(std::move(s));
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
  KTUNE_TRY_ASSIGN(auto compiler, templateCompiler(options, arch));
  KTUNE_TRY_ASSIGN(auto launchers, launcherCompiler(options, limits.arch));
  KTUNE_TRY_ASSIGN(auto helpers, compileHelpers(arch, options.cacheDir));
  auto evaluator = std::make_unique<CudaEvaluator>(
      options, std::move(binding), std::move(compiler),
      std::move(helpers.first), std::move(limits), std::move(*worker),
      std::move(helpers.second), settings, false);
  evaluator->setLauncherCompiler(std::move(launchers));
  return std::unique_ptr<Evaluator>(std::move(evaluator));
}

Expected<std::unique_ptr<Evaluator>>
createCompileOnlyEvaluator(const CudaTuneOptions &options) {
  KTUNE_TRY_ASSIGN(auto binding, bindKernel(options));
  std::string arch = options.arch.empty() ? "sm_90" : options.arch;
  KTUNE_TRY_ASSIGN(auto limits, staticDeviceLimits(arch));
  KTUNE_TRY_ASSIGN(auto compiler, templateCompiler(options, arch));
  KTUNE_TRY_ASSIGN(auto launchers, launcherCompiler(options, arch));
  auto evaluator = std::make_unique<CudaEvaluator>(
      options, std::move(binding), std::move(compiler), nullptr,
      std::move(limits), nullptr, json(), WorkerClient::Settings{}, true);
  evaluator->setLauncherCompiler(std::move(launchers));
  return std::unique_ptr<Evaluator>(std::move(evaluator));
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
  if (request.compileOnly)
    return createCompileOnlyEvaluator(o);
  if (!cudaDeviceAvailable())
    return makeError("no usable CUDA device here: run with --compile-only to "
                     "compile every configuration and report registers, "
                     "spills and shared memory without a GPU");
  return createCudaEvaluator(o);
}

} // namespace ktune
