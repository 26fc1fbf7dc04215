//===- ktune/Cuda/LauncherModule.h - Launchers as loadable modules -*- C++
//-*-===//
//
// Launcher mode compiles one configuration of a templated host launcher
// (`ops::silu_and_mul<__nv_bfloat16, 512U>`) with nvcc into a shared object
// that the worker opens (dlopen) and calls through one C entry point:
//
//   extern "C" int ktune_launch(void **args);   // cudaError_t as int
//
// args[i] points at the bytes of the launcher's i-th parameter (a device
// pointer, a scalar, or the worker's stream); the generated code reads each
// as the parameter's own type, deduced from the instantiation, so no type is
// spelled. nvcc runs with the project's flags (the manifest's `compile`),
// the rewritten headers' include_dirs first. Modules are cached by content;
// the kernel's registers and spills come from the same ptxas report as
// NVRTC's.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_CUDA_LAUNCHERMODULE_H
#define KTUNE_CUDA_LAUNCHERMODULE_H

#include "ktune/Cuda/KernelCompiler.h"
#include "ktune/Cuda/Nvcc.h"
#include "ktune/Plan/Manifest.h"
#include "ktune/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace ktune {

/// The symbol every launcher module exports.
inline constexpr const char *LauncherEntrySymbol = "ktune_launch";
/// `const char *ktune_error_name(int)`: cudaGetErrorName in the module.
inline constexpr const char *LauncherErrorSymbol = "ktune_error_name";

/// nvcc, the architecture, include directories, the project's flags and the
/// spec's compile_options come as NvccCommand has them; the template
/// directory is the template's.
struct LauncherModuleSettings : NvccCommand {
  std::string templatePath;   // the templated source the module includes
  std::string templateSource; // its content (part of the cache key)
  std::string cacheDir;       // empty: a temporary directory
  int jobs = 0; // parallel nvcc calls; 0 = one per hardware thread
  /// The launched kernel whose ptxas report gives the resources.
  std::string kernelName;
  double timeoutSeconds = 300;
};

/// The .cu of one module: includes the template and exports
/// `instantiation` (a qualified name with all template arguments).
std::string launcherModuleSource(const std::string &templatePath,
                                 const std::string &instantiation);

/// nvcc's argv for one module (nvccArgv with NvccOutput::SharedModule).
std::vector<std::string>
launcherCompileCommand(const LauncherModuleSettings &settings,
                       const std::string &sourcePath,
                       const std::string &outputPath);

/// Builds launcher modules: an Instantiation names the launcher's
/// instantiation (no register cap: a cap cannot reach a launcher).
class LauncherCompiler final : public KernelCompiler {
public:
  static Expected<std::unique_ptr<LauncherCompiler>>
  create(LauncherModuleSettings settings);
  ~LauncherCompiler() override;

  /// Starts building what is neither cached nor under way; returns at once.
  void prefetch(const std::vector<std::string> &instantiations);
  void prefetch(const std::vector<Instantiation> &instantiations) override;
  /// The module of one instantiation (imagePath: the .so; loweredName: the
  /// entry symbol), waiting for its build. A compile error carries nvcc's
  /// first error lines.
  Expected<CompiledKernel> get(const std::string &instantiation);
  Expected<CompiledKernel> get(const Instantiation &instantiation) override;

  CompileStats stats() const override;
  const std::string &arch() const override;
  std::string backend() const override { return "nvcc"; }
  std::vector<std::string> recordedOptions() const override;

private:
  LauncherCompiler();
  struct Impl;
  std::unique_ptr<Impl> I;
};

} // namespace ktune

#endif
