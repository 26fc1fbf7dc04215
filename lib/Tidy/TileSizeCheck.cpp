//===- TileSizeCheck.cpp - ktune-tile-size --------------------------------===//

#include "TileSizeCheck.h"

namespace ktune::tidy {

TileSizeCheck::TileSizeCheck(llvm::StringRef name,
                             clang::tidy::ClangTidyContext *context,
                             std::shared_ptr<UnitAnalysis> unit)
    : KtuneCheck(name, context, ParamKind::TileSize, std::move(unit)) {}

} // namespace ktune::tidy
