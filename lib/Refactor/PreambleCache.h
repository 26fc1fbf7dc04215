//===- PreambleCache.h - Precompiled preambles kept on disk -----*- C++ -*-===//
//
// The leading #include block of a CUDA file (cuda_bf16.h, cub, ...) costs
// seconds to parse and rarely changes. It is precompiled with Clang's
// PrecompiledPreamble machinery, moved into a cache directory, and reused by
// later runs while the preamble text, the compile arguments and every header
// it read (size and modification time) are unchanged.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_LIB_REFACTOR_PREAMBLECACHE_H
#define KTUNE_LIB_REFACTOR_PREAMBLECACHE_H

#include "ktune/Refactor/HeaderFilter.h"

#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Serialization/PCHContainerOperations.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <string>

namespace ktune::refactor {

enum class PreambleUse {
  None,   // no preamble (none in the file, no cache, or it failed)
  Reused, // a cached preamble was used
  Built,  // built now, cached and used
  Missed, // none cached and not built (the caller builds it later)
};

/// Makes `invocation` parse its main file with a cached preamble; when there
/// is none, builds and stores it first if `buildOnMiss`. `argsKey`
/// identifies everything besides the main file's text that changes the
/// preamble's meaning (`headers`' key included: the bodies of the headers it
/// lets through are kept). Never fails the parse: on any problem the
/// invocation is left unchanged.
PreambleUse
configurePreamble(clang::CompilerInvocation &invocation,
                  const llvm::MemoryBuffer &mainBuffer,
                  const std::string &cacheDir, const std::string &argsKey,
                  std::shared_ptr<clang::PCHContainerOperations> pchOps,
                  bool buildOnMiss, const HeaderFilter *headers = nullptr);

} // namespace ktune::refactor

#endif
