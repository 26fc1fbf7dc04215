//===- ktune/Cuda/NvccCompiler.h - Instantiations built by nvcc -*- C++ -*-===//
//
// The kernel-mode backend for code NVRTC does not compile (host headers
// that bring in `uint`, <iostream>, flags only nvcc takes): the template is
// compiled by nvcc with the project's own flags, many configurations per
// call. Each call compiles one generated file,
//
//   #include "/abs/kernel.tpl.cu"
//   extern "C" void *ktune_kernel_0 = (void *)&ops::k<__nv_bfloat16, 256>;
//   extern "C" void *ktune_kernel_1 = (void *)&ops::k<__nv_bfloat16, 512>;
//
// to a host object (-c). Taking an instantiation's address makes nvcc emit
// it; the object's `.nv_fatbin` section is the device code the worker loads,
// and each pointer's relocation names the host stub of its instantiation,
// whose demangled name is the device function's (ElfObject.h). Registers
// and spills come from `-Xptxas -v` (PtxasLog.h). Calls run in parallel on
// a pool; results go to the same content-addressed CompileCache as NVRTC's
// (images stored as .fatbin); a failing call is split in halves until the
// configurations that fail are found.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_CUDA_NVCCCOMPILER_H
#define KTUNE_CUDA_NVCCCOMPILER_H

#include "ktune/Cuda/KernelCompiler.h"
#include "ktune/Cuda/Nvcc.h"

#include <memory>
#include <string>
#include <vector>

namespace ktune {

struct NvccSettings {
  /// nvcc, the architecture (sm_XY), include directories, the project's
  /// flags and extra flags; templateDir defaults to the template's.
  NvccCommand command;
  std::string templatePath; // absolute; included by every generated file
  /// The compile cache; empty = a temporary one removed with the compiler.
  std::string cacheDir;
  int jobs = 0;      // parallel nvcc calls; 0 = one per hardware thread
  int maxBatch = 32; // most instantiations per call
  double timeoutSeconds = 900;
};

/// The generated file of one call: includes the template and takes the
/// address of each instantiation in `nameExpressions`.
std::string nvccBatchSource(const std::string &templatePath,
                            const std::vector<std::string> &nameExpressions);

class NvccCompiler final : public KernelCompiler {
public:
  /// `source` is the template's content (part of every cache key).
  static Expected<std::unique_ptr<NvccCompiler>> create(std::string source,
                                                        NvccSettings settings);
  ~NvccCompiler() override;

  void prefetch(const std::vector<Instantiation> &instantiations) override;
  Expected<CompiledKernel> get(const Instantiation &instantiation) override;
  CompileStats stats() const override;
  const std::string &arch() const override;
  std::string backend() const override { return "nvcc"; }
  std::vector<std::string> recordedOptions() const override;

  /// nvcc's flags for an instantiation (what the cache key holds).
  std::vector<std::string> options(int maxRegisters) const;

private:
  NvccCompiler();
  struct Impl;
  std::unique_ptr<Impl> I;
};

} // namespace ktune

#endif
