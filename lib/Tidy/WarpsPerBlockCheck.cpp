//===- WarpsPerBlockCheck.cpp - ktune-warps-per-block ---------------------===//

#include "WarpsPerBlockCheck.h"

namespace ktune::tidy {

WarpsPerBlockCheck::WarpsPerBlockCheck(llvm::StringRef name,
                                       clang::tidy::ClangTidyContext *context,
                                       std::shared_ptr<UnitAnalysis> unit)
    : KtuneCheck(name, context, ParamKind::WarpsPerBlock, std::move(unit)) {}

} // namespace ktune::tidy
