//===- CompileBatches.h - Instantiations compiled once, in batches -*- C++
//-*-===//
//
// What NvrtcCompiler and NvccCompiler share: each instantiation is compiled
// once, by its cache key; a cache hit is answered at once; the rest, grouped
// by register cap, are split into enough batches to keep every pool thread
// busy (none over the compiler's maxBatch). `Impl` is either compiler's
// implementation: a BatchCompilerState with Settings.maxBatch, key() and
// compileBatch().
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_LIB_CUDA_COMPILEBATCHES_H
#define KTUNE_LIB_CUDA_COMPILEBATCHES_H

#include "ktune/Cuda/CompileCache.h"
#include "ktune/Cuda/KernelCompiler.h"
#include "ktune/Support/ThreadPool.h"

#include <algorithm>
#include <atomic>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace ktune {

/// The answer a cache entry gives (an error for a failed compile).
Expected<CompiledKernel> compiledKernelFrom(const CacheEntry &entry,
                                            bool fromCache, bool isPtx = false);

/// What either compiler's implementation holds besides its settings: the
/// cache, the pool, every instantiation's answer and the counters.
struct BatchCompilerState {
  std::optional<CompileCache> Cache;
  std::string TempDir; // removed in the destructor when we made it
  /// The owner resets it first: queued batches use the owner's settings.
  std::unique_ptr<ThreadPool> Pool;

  std::mutex Mutex;
  std::map<std::string, std::shared_future<Expected<CompiledKernel>>> Results;
  std::atomic<uint64_t> Programs{0}, Instantiations{0}, CacheHits{0},
      Failures{0};
  std::atomic<int64_t> CompileMicros{0};

  struct Pending {
    Instantiation Inst;
    std::string Key;
    std::shared_ptr<std::promise<Expected<CompiledKernel>>> Promise;
  };

  ~BatchCompilerState();

  /// Opens the cache in `cacheDir` (when empty, in a new temporary directory
  /// `ktune-<tempPrefix>-XXXXXX`, which `cacheDir` is set to) and starts a
  /// pool of `jobs` threads.
  Status open(std::string &cacheDir, const std::string &tempPrefix, int jobs);

  CompileStats stats() const;

  /// Caches `entry` (compiles are deterministic) and answers with it.
  void storeAndFinish(Pending &p, CacheEntry entry, bool isPtx = false);
  void finish(Pending &p, Expected<CompiledKernel> result) {
    p.Promise->set_value(std::move(result));
  }
  /// Answers every instantiation of `batch` with the error `why`.
  void failAll(std::vector<Pending> &batch, const std::string &why);
};

/// Starts compiling what `insts` needs and nobody asked for yet;
/// `fromCache(entry)` turns a cache hit into the answer.
template <class Impl, class FromCache>
void prefetchInBatches(Impl &impl, const std::vector<Instantiation> &insts,
                       FromCache fromCache) {
  std::map<int, std::vector<typename Impl::Pending>> todo; // by maxRegisters
  {
    std::lock_guard<std::mutex> lock(impl.Mutex);
    for (const auto &inst : insts) {
      std::string key = impl.key(inst);
      if (impl.Results.count(key))
        continue;
      auto promise = std::make_shared<std::promise<Expected<CompiledKernel>>>();
      impl.Results.emplace(key, promise->get_future().share());
      if (auto hit = impl.Cache->lookup(key)) {
        ++impl.CacheHits;
        promise->set_value(fromCache(*hit));
        continue;
      }
      todo[inst.maxRegisters].push_back({inst, key, promise});
    }
  }
  const size_t threads = static_cast<size_t>(impl.Pool->size());
  for (auto &[maxRegs, pending] : todo) {
    size_t perBatch =
        std::clamp<size_t>((pending.size() + threads - 1) / threads, 1,
                           static_cast<size_t>(impl.Settings.maxBatch));
    for (size_t begin = 0; begin < pending.size(); begin += perBatch) {
      size_t end = std::min(pending.size(), begin + perBatch);
      auto batch = std::make_shared<std::vector<typename Impl::Pending>>(
          std::make_move_iterator(pending.begin() + begin),
          std::make_move_iterator(pending.begin() + end));
      Impl *self = &impl;
      impl.Pool->submit(
          [self, batch] { self->compileBatch(std::move(*batch)); });
    }
  }
}

/// The compiled instantiation, waiting for it; `prefetch` starts it when
/// nobody asked for it before.
template <class Impl, class Prefetch>
Expected<CompiledKernel> compiledOnce(Impl &impl, const Instantiation &inst,
                                      Prefetch prefetch) {
  std::string key = impl.key(inst);
  std::shared_future<Expected<CompiledKernel>> future;
  {
    std::lock_guard<std::mutex> lock(impl.Mutex);
    if (auto it = impl.Results.find(key); it != impl.Results.end())
      future = it->second;
  }
  if (!future.valid()) {
    prefetch({inst});
    std::lock_guard<std::mutex> lock(impl.Mutex);
    future = impl.Results.at(key);
  }
  return future.get();
}

} // namespace ktune

#endif
