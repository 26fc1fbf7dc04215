//===- ChooseCompiler.h - NVRTC, nvcc, or nvcc launcher modules -*- C++ -*-===//
//
// Which compiler builds a tuning session's configurations. NVRTC is the fast
// path; nvcc compiles what NVRTC cannot (host headers bringing in `uint`,
// <iostream>, flags only nvcc takes) with the project's own flags. `auto`
// takes NVRTC when it compiles the default configuration, else nvcc, and
// says why; launcher mode always builds nvcc modules. Either way the default
// configuration is compiled here: when it does not compile, the session
// stops with the compiler's first message (file:line) before anything runs.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_LIB_CUDA_CHOOSECOMPILER_H
#define KTUNE_LIB_CUDA_CHOOSECOMPILER_H

#include "ktune/Cuda/CudaEvaluator.h"
#include "ktune/Cuda/KernelCompiler.h"
#include "ktune/Tune/KernelBinding.h"

#include <memory>

namespace ktune {

struct ChosenCompiler {
  std::unique_ptr<KernelCompiler> compiler;
  CompilerReport report; // backend, reason, options, dropped flags
};

/// The compiler for `options` at `arch`, with the default configuration of
/// `binding` compiled by it.
Expected<ChosenCompiler> chooseCompiler(const CudaTuneOptions &options,
                                        const KernelBinding &binding,
                                        const std::string &arch);

} // namespace ktune

#endif
