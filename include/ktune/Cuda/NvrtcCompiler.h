//===- ktune/Cuda/NvrtcCompiler.h - Template instantiations to cubin -*- C++
//-*-===//
//
// Compiles instantiations of a template source by name expression
// ("ops::silu_mul<__nv_bfloat16, 256, 4>") with NVRTC. Many instantiations
// share one NVRTC program, so the headers are parsed once per batch; batches
// run in parallel on a thread pool. Each instantiation's registers, spills,
// stack and static shared memory come from the `ptxas -v` log. Results go to
// a content-addressed CompileCache: nothing is compiled twice, across runs
// too. When a batch fails, it is split in halves until the failing
// instantiations are found, so one bad configuration never fails others.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_CUDA_NVRTCCOMPILER_H
#define KTUNE_CUDA_NVRTCCOMPILER_H

#include "ktune/Cuda/KernelCompiler.h"
#include "ktune/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ktune {

struct NvrtcSettings {
  /// "sm_90" compiles to cubin; "compute_90" to PTX (the driver JITs it).
  std::string arch = "sm_90";
  std::vector<std::string> includePaths; // besides the CUDA include dirs
  std::vector<std::string> extraOptions; // e.g. from spec.compileOptions
  /// The compile cache; empty = a temporary one removed with the compiler.
  std::string cacheDir;
  int jobs = 0;      // compile threads; 0 = one per hardware thread
  int maxBatch = 16; // most name expressions in one NVRTC program
};

class NvrtcCompiler final : public KernelCompiler {
public:
  static Expected<std::unique_ptr<NvrtcCompiler>>
  create(std::string source, std::string sourceName, NvrtcSettings settings);
  ~NvrtcCompiler() override;

  void prefetch(const std::vector<Instantiation> &instantiations) override;
  Expected<CompiledKernel> get(const Instantiation &instantiation) override;
  CompileStats stats() const override;
  const std::string &arch() const override;
  std::string backend() const override { return "nvrtc"; }
  std::vector<std::string> recordedOptions() const override;
  /// NVRTC options for an instantiation, in the order passed.
  std::vector<std::string> options(int maxRegisters) const;
  std::string cacheKey(const Instantiation &instantiation) const;

private:
  NvrtcCompiler();
  struct Impl;
  std::unique_ptr<Impl> I;
};

/// "nvrtc 13.0".
std::string nvrtcVersionString();
/// Architectures NVRTC can compile for, as "sm_XY".
std::vector<std::string> nvrtcSupportedArchs();
/// The CUDA toolkit's include directories (with include/cccl), found from
/// $CUDA_HOME / $CUDA_PATH, else where the build found the toolkit.
std::vector<std::string> cudaIncludeDirs();

} // namespace ktune

#endif
