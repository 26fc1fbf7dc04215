//===- Checks.h - The ktune-* checks ----------------------------*- C++ -*-===//
//
// One class per check. Each finds a hardcoded constant of its kind in a CUDA
// kernel that could be a template parameter for ktune to tune, with every
// site that changes with it, and lifts it (the fix-it is ktune-refactor's
// rewrite of that one parameter). What they do is KtuneCheck's; they differ
// in the kind only. The check names are Findings' (checkName).
//
// For the user-facing documentation see: docs/checks/<check name>.md
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_LIB_TIDY_CHECKS_H
#define KTUNE_LIB_TIDY_CHECKS_H

#include "KtuneCheck.h"

namespace ktune::tidy {

/// The check for parameters of kind `K`.
template <ParamKind K> class KindCheck : public KtuneCheck {
public:
  static constexpr ParamKind Kind = K;
  KindCheck(llvm::StringRef name, clang::tidy::ClangTidyContext *context,
            std::shared_ptr<UnitAnalysis> unit = nullptr)
      : KtuneCheck(name, context, K, std::move(unit)) {}
};

/// ktune-block-size: threads per block.
using BlockSizeCheck = KindCheck<ParamKind::BlockSize>;
/// ktune-tile-size: a tile's extent.
using TileSizeCheck = KindCheck<ParamKind::TileSize>;
/// ktune-unroll-factor: `#pragma unroll N`.
using UnrollFactorCheck = KindCheck<ParamKind::Unroll>;
/// ktune-vector-width: elements per vector load or store.
using VectorWidthCheck = KindCheck<ParamKind::VectorWidth>;
/// ktune-items-per-thread: elements each thread handles.
using ItemsPerThreadCheck = KindCheck<ParamKind::ItemsPerThread>;
/// ktune-warps-per-block: warps per block.
using WarpsPerBlockCheck = KindCheck<ParamKind::WarpsPerBlock>;
/// ktune-grid-size: the grid of a grid-stride launch.
using GridSizeCheck = KindCheck<ParamKind::GridSize>;

} // namespace ktune::tidy

#endif
