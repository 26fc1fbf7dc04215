//===- VectorWidthCheck.cpp - ktune-vector-width --------------------------===//

#include "VectorWidthCheck.h"

namespace ktune::tidy {

VectorWidthCheck::VectorWidthCheck(llvm::StringRef name,
                                   clang::tidy::ClangTidyContext *context,
                                   std::shared_ptr<UnitAnalysis> unit)
    : KtuneCheck(name, context, ParamKind::VectorWidth, std::move(unit)) {}

} // namespace ktune::tidy
