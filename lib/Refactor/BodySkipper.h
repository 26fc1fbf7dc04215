//===- BodySkipper.h - Which function bodies a parse skips ------*- C++ -*-===//
//
// System headers (cub, cuda_bf16.h) dominate parse time, and their function
// bodies are never analysed: a parse skips them. The main file's bodies are
// kept, and in the headers detection may follow kernels into, the kernels'
// bodies, those of host functions that spell a launch (launchers the
// main file may call) and the constructors of classes that are no templates
// (a launch-parameter struct's fields). Other bodies in those headers (device
// helpers, other host code) are skipped too: read, they would be instantiated
// with the kernels, and Clang refuses some template code nvcc takes
// (`X<T>::f<N>()` without `template`).
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_LIB_REFACTOR_BODYSKIPPER_H
#define KTUNE_LIB_REFACTOR_BODYSKIPPER_H

#include "ktune/Refactor/HeaderFilter.h"

#include "clang/AST/DeclBase.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseMap.h"

namespace ktune::refactor {

class BodySkipper {
public:
  /// `headers` null: every header body is skipped.
  explicit BodySkipper(const HeaderFilter *headers) : Headers(headers) {}

  /// Whether the body of `d` (a function or function template) is skipped.
  bool skip(const clang::SourceManager &sm, const clang::Decl *d);

private:
  const HeaderFilter *Headers;
  llvm::DenseMap<clang::FileID, bool> Skip; // per file
};

} // namespace ktune::refactor

#endif
