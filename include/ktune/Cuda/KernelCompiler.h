//===- ktune/Cuda/KernelCompiler.h - One configuration to code --*- C++ -*-===//
//
// What the evaluator asks of a compiler, whichever it is: NVRTC (in
// process, the fast path), nvcc with the project's flags (many
// instantiations per call, for code NVRTC does not compile), or nvcc
// building launcher modules. Each compiles in parallel ahead of use
// (prefetch), caches by content, and reports registers, spills and shared
// memory from ptxas.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_CUDA_KERNELCOMPILER_H
#define KTUNE_CUDA_KERNELCOMPILER_H

#include "ktune/Cuda/PtxasLog.h"
#include "ktune/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ktune {

struct Instantiation {
  std::string nameExpression;
  int maxRegisters = 0; // --maxrregcount; 0 = no cap
};

struct CompiledKernel {
  std::string nameExpression;
  std::string loweredName; // the symbol to look up in the image
  std::string imagePath;   // cubin, fatbin or PTX file in the cache (.so
                           // for a launcher module)
  bool isPtx = false;
  PtxasFunctionInfo resources; // registers == -1 when unknown (PTX)
  std::string log;
  double compileMs = 0; // this instantiation's share of its batch's time
  bool fromCache = false;
};

struct CompileStats {
  uint64_t programs = 0;       // NVRTC programs or nvcc calls
  uint64_t instantiations = 0; // instantiations compiled (not from cache)
  uint64_t cacheHits = 0;
  uint64_t failures = 0;
  double compileSeconds = 0; // summed over programs (CPU-parallel)
};

class KernelCompiler {
public:
  virtual ~KernelCompiler() = default;

  /// Starts compiling what is neither cached nor already under way, in
  /// batches on a pool; returns at once.
  virtual void prefetch(const std::vector<Instantiation> &instantiations) = 0;
  /// The result for one instantiation, waiting for (or starting) its
  /// compile. A compile error is an Error whose message holds the
  /// compiler's first error lines.
  virtual Expected<CompiledKernel> get(const Instantiation &instantiation) = 0;
  virtual CompileStats stats() const = 0;
  virtual const std::string &arch() const = 0;
  /// "nvrtc" or "nvcc".
  virtual std::string backend() const = 0;
  /// The options every compile gets (no register cap), for the record.
  virtual std::vector<std::string> recordedOptions() const = 0;

  /// prefetch + get for each, in order.
  std::vector<Expected<CompiledKernel>>
  compileAll(const std::vector<Instantiation> &instantiations) {
    prefetch(instantiations);
    std::vector<Expected<CompiledKernel>> out;
    out.reserve(instantiations.size());
    for (const auto &inst : instantiations)
      out.push_back(get(inst));
    return out;
  }
};

} // namespace ktune

#endif
