//===- ktune/Cuda/CudaEvaluator.h - Compile, run, verify, time --*- C++ -*-===//
//
// The Evaluator that uses the GPU: NVRTC compiles instantiations of the
// template (in parallel, cached on disk by content), configurations over the
// device's limits are pruned, the rest run in a worker process that a fault
// or a hang cannot take down with the tuner, outputs are compared with the
// default instantiation's, and times are medians of L2-flushed repetitions.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_CUDA_CUDAEVALUATOR_H
#define KTUNE_CUDA_CUDAEVALUATOR_H

#include "ktune/Plan/Manifest.h"
#include "ktune/Tune/Evaluator.h"
#include "ktune/Tune/Spec.h"

#include <memory>
#include <string>
#include <vector>

namespace ktune {

struct EvaluatorRequest; // ktune/Tune/Session.h

struct CudaTuneOptions {
  std::string templatePath;   // the .tpl.cu file
  std::string templateSource; // its content
  Manifest manifest;
  std::string kernel; // manifest kernel name
  Spec spec;
  std::string cacheDir; // content-addressed compile cache
  int jobs = 0;         // compile threads; 0 = all cores
  std::string arch;     // "sm_90"; empty = the device's (or sm_90 without one)
  double watchdogSeconds = 10.0;
  double maxTimingSecondsPerConfig = 2.0;
  double targetRelativeIqr = 0.02;
  /// Flush the L2 cache before every timed launch (cold, the default) or
  /// time back-to-back launches on warm caches.
  bool coldL2 = true;
  /// The GPU (ordinal) the worker runs on; -1: the default (KTUNE_DEVICE,
  /// else 0).
  int gpu = -1;
  /// NVRTC, nvcc, or NVRTC when it compiles the default configuration
  /// (auto); where the choice came from ("--compiler", "the spec").
  CompilerChoice compiler = CompilerChoice::Auto;
  std::string compilerChoiceFrom;
  /// The project's compile command; else the manifest's "compile".
  std::optional<CompileCommandInfo> projectCommand;
  /// Include directories for both backends, and for NVRTC only.
  std::vector<std::string> includeDirs;
  std::vector<std::string> nvrtcIncludeDirs;
};

/// True when a CUDA driver and at least one device are usable.
bool cudaDeviceAvailable();
/// The number of CUDA devices the worker sees (0 without a usable driver).
int cudaDeviceCount();

/// Evaluator on the GPU.
Expected<std::unique_ptr<Evaluator>>
createCudaEvaluator(const CudaTuneOptions &options);

/// Evaluator for --compile-only: compiles and prunes by the architecture's
/// limits, never launches; Ok results carry resources and no time.
Expected<std::unique_ptr<Evaluator>>
createCompileOnlyEvaluator(const CudaTuneOptions &options);

/// The evaluator ktune-tune and `ktune run` tune with (an EvaluatorFactory):
/// compile-only when asked, else on the GPU, which must then be usable.
Expected<std::unique_ptr<Evaluator>>
createEvaluator(const EvaluatorRequest &request);

} // namespace ktune

#endif
