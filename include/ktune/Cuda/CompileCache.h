//===- ktune/Cuda/CompileCache.h - Compiled kernels on disk -----*- C++ -*-===//
//
// A content-addressed store of compiled instantiations, shared by runs and
// processes: the key is the SHA-256 of everything that decides the result
// (source, name expression, architecture, options, NVRTC version), so a
// configuration is compiled once, ever. Failures are stored too. Images
// (cubin or PTX) are stored once by their own hash: one NVRTC program holds
// many instantiations and their entries share its image. Every file is
// written atomically, so concurrent writers and crashes leave no torn entry.
//
//   <dir>/entries/<k[0:2]>/<key>.json   one per instantiation
//   <dir>/images/<sha256>.cubin|.ptx|.fatbin   one per program or nvcc call
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_CUDA_COMPILECACHE_H
#define KTUNE_CUDA_COMPILECACHE_H

#include "ktune/Cuda/PtxasLog.h"
#include "ktune/Support/Error.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ktune {

struct CompileKey {
  std::string sourceSha256;
  std::string nameExpression;
  std::string arch;
  std::vector<std::string> options; // in the order passed to NVRTC
  std::string compilerVersion;      // "nvrtc 13.0"
};

/// Hex SHA-256 over the key's parts (unambiguously delimited).
std::string compileCacheKey(const CompileKey &key);

struct CacheEntry {
  bool ok = false;
  std::string error; // when !ok: the compiler's message
  std::string nameExpression;
  std::string loweredName;
  std::string imagePath; // absolute path of the cubin/PTX file
  PtxasFunctionInfo resources;
  std::string log;
  double compileMs = 0; // what the compile cost when it ran
};

class CompileCache {
public:
  /// Creates the directory layout when missing.
  static Expected<CompileCache> open(const std::string &dir);

  const std::string &dir() const { return Dir; }

  /// The entry, when present and whole (an entry whose image is missing or
  /// whose JSON does not parse is a miss).
  std::optional<CacheEntry> lookup(const std::string &key) const;

  /// Stores an image by content; returns its path. Storing the same bytes
  /// again is a no-op.
  Expected<std::string> storeImage(std::string_view bytes, bool isPtx);
  /// The same with the file's extension given (".fatbin").
  Expected<std::string> storeImageAs(std::string_view bytes,
                                     std::string_view extension);

  /// Stores an entry (its imagePath must come from storeImage when ok).
  Status store(const std::string &key, const CacheEntry &entry);

private:
  explicit CompileCache(std::string dir) : Dir(std::move(dir)) {}
  std::string entryPath(const std::string &key) const;
  std::string Dir;
};

} // namespace ktune

#endif
