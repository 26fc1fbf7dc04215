//===- CompileBatches.cpp - State both batch compilers keep ---------------===//
#include "CompileBatches.h"

#include "ktune/Support/Try.h"

#include <filesystem>
#include <unistd.h>

namespace ktune {

namespace fs = std::filesystem;

Expected<CompiledKernel> compiledKernelFrom(const CacheEntry &e, bool fromCache,
                                            bool isPtx) {
  if (!e.ok)
    return std::unexpected(Error{e.error, ""});
  CompiledKernel k;
  k.nameExpression = e.nameExpression;
  k.loweredName = e.loweredName;
  k.imagePath = e.imagePath;
  k.isPtx = isPtx;
  k.resources = e.resources;
  k.log = e.log;
  k.compileMs = fromCache ? 0.0 : e.compileMs;
  k.fromCache = fromCache;
  return k;
}

BatchCompilerState::~BatchCompilerState() {
  Pool.reset();
  if (!TempDir.empty()) {
    std::error_code ec;
    fs::remove_all(TempDir, ec);
  }
}

Status BatchCompilerState::open(std::string &cacheDir,
                                const std::string &tempPrefix, int jobs) {
  if (cacheDir.empty()) {
    std::string tmpl =
        (fs::temp_directory_path() / ("ktune-" + tempPrefix + "-XXXXXX"))
            .string();
    if (!mkdtemp(tmpl.data()))
      return makeError("cannot create a temporary compile cache directory");
    TempDir = tmpl;
    cacheDir = tmpl;
  }
  KTUNE_TRY_ASSIGN(auto cache, CompileCache::open(cacheDir));
  Cache = std::move(cache);
  Pool = std::make_unique<ThreadPool>(jobs);
  return {};
}

CompileStats BatchCompilerState::stats() const {
  return {.programs = Programs,
          .instantiations = Instantiations,
          .cacheHits = CacheHits,
          .failures = Failures,
          .compileSeconds = static_cast<double>(CompileMicros.load()) / 1e6};
}

void BatchCompilerState::storeAndFinish(Pending &p, CacheEntry entry,
                                        bool isPtx) {
  if (auto s = Cache->store(p.Key, entry); !s) {
    finish(p, std::unexpected(Error{"compile cache: " + s.error().str(), ""}));
    return;
  }
  if (!entry.ok)
    ++Failures;
  finish(p, compiledKernelFrom(entry, false, isPtx));
}

void BatchCompilerState::failAll(std::vector<Pending> &batch,
                                 const std::string &why) {
  for (auto &p : batch) {
    ++Failures;
    finish(p, std::unexpected(Error{why, ""}));
  }
}

} // namespace ktune
