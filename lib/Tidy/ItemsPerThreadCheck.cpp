//===- ItemsPerThreadCheck.cpp - ktune-items-per-thread -------------------===//

#include "ItemsPerThreadCheck.h"

namespace ktune::tidy {

ItemsPerThreadCheck::ItemsPerThreadCheck(llvm::StringRef name,
                                         clang::tidy::ClangTidyContext *context,
                                         std::shared_ptr<UnitAnalysis> unit)
    : KtuneCheck(name, context, ParamKind::ItemsPerThread, std::move(unit)) {}

} // namespace ktune::tidy
