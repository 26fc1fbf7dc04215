//===- BodySkipper.h - Which function bodies a parse skips ------*- C++ -*-===//
//
// System headers (cub, cuda_bf16.h) dominate parse time, and their function
// bodies are never analysed: a parse skips them. The bodies of the main file
// and of the headers detection may follow kernels into are kept.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_LIB_REFACTOR_BODYSKIPPER_H
#define KTUNE_LIB_REFACTOR_BODYSKIPPER_H

#include "ktune/Refactor/HeaderFilter.h"

#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseMap.h"

namespace ktune::refactor {

class BodySkipper {
public:
  /// `headers` null: every header body is skipped.
  explicit BodySkipper(const HeaderFilter *headers) : Headers(headers) {}

  /// Whether the body of a function declared at `loc` is skipped.
  bool skip(const clang::SourceManager &sm, clang::SourceLocation loc);

private:
  const HeaderFilter *Headers;
  llvm::DenseMap<clang::FileID, bool> Skip; // per file
};

} // namespace ktune::refactor

#endif
