#include "ktune/Plan/ParamKind.h"

#include "ktune/Support/EnumNames.h"
#include "ktune/Support/JsonReader.h"
#include "ktune/Support/Try.h"

namespace ktune {

namespace {

constexpr EnumName<ParamKind> KindNames[] = {
    {ParamKind::BlockSize, "block_size"},
    {ParamKind::TileSize, "tile_size"},
    {ParamKind::Unroll, "unroll"},
    {ParamKind::VectorWidth, "vector_width"},
    {ParamKind::ItemsPerThread, "items_per_thread"},
    {ParamKind::WarpsPerBlock, "warps_per_block"},
    {ParamKind::GridSize, "grid_size"},
    {ParamKind::RowSplit, "row_split"},
    {ParamKind::MinBlocks, "min_blocks"},
    {ParamKind::FixedArg, "fixed_arg"},
    {ParamKind::Other, "other"},
};

} // namespace

std::string_view kindName(ParamKind kind) {
  return nameOf(KindNames, kind, "other");
}

std::optional<ParamKind> parseKind(std::string_view name) {
  return parseName(KindNames, name);
}

Expected<ParamKind> kindFromJson(const JsonReader &j) {
  KTUNE_TRY_ASSIGN(std::string kind, j.requiredString("kind"));
  auto parsed = parseKind(kind);
  if (!parsed)
    return j.failAt("kind", "unknown kind \"" + kind +
                                "\" (expected block_size, tile_size, unroll, "
                                "vector_width, items_per_thread, "
                                "warps_per_block, grid_size, row_split, "
                                "min_blocks, fixed_arg or other)");
  return *parsed;
}

} // namespace ktune
