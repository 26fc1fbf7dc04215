//===- BlockSizeCheck.cpp - ktune-block-size ------------------------------===//

#include "BlockSizeCheck.h"

namespace ktune::tidy {

BlockSizeCheck::BlockSizeCheck(llvm::StringRef name,
                               clang::tidy::ClangTidyContext *context,
                               std::shared_ptr<UnitAnalysis> unit)
    : KtuneCheck(name, context, ParamKind::BlockSize, std::move(unit)) {}

} // namespace ktune::tidy
