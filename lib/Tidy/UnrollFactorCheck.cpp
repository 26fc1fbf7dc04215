//===- UnrollFactorCheck.cpp - ktune-unroll-factor ------------------------===//

#include "UnrollFactorCheck.h"

namespace ktune::tidy {

UnrollFactorCheck::UnrollFactorCheck(llvm::StringRef name,
                                     clang::tidy::ClangTidyContext *context,
                                     std::shared_ptr<UnitAnalysis> unit)
    : KtuneCheck(name, context, ParamKind::Unroll, std::move(unit)) {}

} // namespace ktune::tidy
