//===- BlockSizeCheck.h - ktune-block-size ----------------------*- C++ -*-===//
#ifndef KTUNE_LIB_TIDY_BLOCKSIZECHECK_H
#define KTUNE_LIB_TIDY_BLOCKSIZECHECK_H

#include "KtuneCheck.h"

namespace ktune::tidy {

/// Finds a hardcoded block size (threads per block) in a CUDA kernel that could
/// be a template parameter for ktune to tune, with every site that changes with
/// it, and lifts it (the fix-it is ktune-refactor's rewrite of that one
/// parameter).
///
/// For the user-facing documentation see: docs/checks/ktune-block-size.md
class BlockSizeCheck : public KtuneCheck {
public:
  BlockSizeCheck(llvm::StringRef name, clang::tidy::ClangTidyContext *context,
                 std::shared_ptr<UnitAnalysis> unit = nullptr);
};

} // namespace ktune::tidy

#endif
