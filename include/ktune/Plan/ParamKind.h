//===- ktune/Plan/ParamKind.h - What a tunable parameter is ----*- C++ -*-===//
//
// The kind of a tunable parameter (block size, unroll factor, ...), shared by
// candidates, plans and the manifest; each spells it in JSON by the one
// name table of ParamKind.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_PLAN_PARAMKIND_H
#define KTUNE_PLAN_PARAMKIND_H

#include "ktune/Support/Error.h"

#include <optional>
#include <string_view>

namespace ktune {

class JsonReader;

enum class ParamKind {
  BlockSize,
  TileSize,
  Unroll,
  VectorWidth,
  ItemsPerThread,
  WarpsPerBlock,
  GridSize,
  /// Structural: blocks per row, a parameter the refactorer introduces
  /// where a kernel's row can be split (no constant of the code holds it).
  RowSplit,
  /// A minimum of resident blocks per SM (`__launch_bounds__(T, M)`): the
  /// register cap ptxas derives from it. 0 names no minimum.
  MinBlocks,
  /// Structural: a kernel's integer argument fixed at compile time to the
  /// shape's value (0, the default, reads the argument as before).
  FixedArg,
  Other,
};

/// "block_size", "tile_size", "unroll", "vector_width", "items_per_thread",
/// "warps_per_block", "grid_size", "row_split", "min_blocks", "fixed_arg",
/// "other".
std::string_view kindName(ParamKind kind);
std::optional<ParamKind> parseKind(std::string_view name);
/// A kind the refactorer introduces (row_split, fixed_arg): the default
/// plan never lifts it, the tuning loop proposes it.
inline bool isStructural(ParamKind kind) {
  return kind == ParamKind::RowSplit || kind == ParamKind::FixedArg;
}

/// The field "kind" of `j`, a name parseKind knows.
Expected<ParamKind> kindFromJson(const JsonReader &j);

} // namespace ktune

#endif
