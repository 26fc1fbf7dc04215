//===- ItemsPerThreadCheck.h - ktune-items-per-thread -----------*- C++ -*-===//
#ifndef KTUNE_LIB_TIDY_ITEMSPERTHREADCHECK_H
#define KTUNE_LIB_TIDY_ITEMSPERTHREADCHECK_H

#include "KtuneCheck.h"

namespace ktune::tidy {

/// Finds a hardcoded items-per-thread count in a CUDA kernel that could be a
/// template parameter for ktune to tune, with every site that changes with it,
/// and lifts it (the fix-it is ktune-refactor's rewrite of that one parameter).
///
/// For the user-facing documentation see: docs/checks/ktune-items-per-thread.md
class ItemsPerThreadCheck : public KtuneCheck {
public:
  ItemsPerThreadCheck(llvm::StringRef name,
                      clang::tidy::ClangTidyContext *context,
                      std::shared_ptr<UnitAnalysis> unit = nullptr);
};

} // namespace ktune::tidy

#endif
