//===- SiteRole.cpp - Site roles and their JSON names ---------------------===//

#include "ktune/Plan/Candidates.h"

#include "ktune/Support/EnumNames.h"

#include <ostream>

namespace ktune {

namespace {
constexpr EnumName<SiteRole> RoleNames[] = {
    {SiteRole::CubBlockSize, "cub_block_size"},
    {SiteRole::CubItemsPerThread, "cub_items_per_thread"},
    {SiteRole::Definition, "definition"},
    {SiteRole::IndexArith, "index_arith"},
    {SiteRole::LaunchBlock, "launch_block"},
    {SiteRole::LaunchBounds, "launch_bounds"},
    {SiteRole::LaunchBoundsMinBlocks, "launch_bounds_min_blocks"},
    {SiteRole::LaunchGrid, "launch_grid"},
    {SiteRole::LaunchSmem, "launch_smem"},
    {SiteRole::LoopBound, "loop_bound"},
    {SiteRole::LoopStride, "loop_stride"},
    {SiteRole::Other, "other"},
    {SiteRole::RegisterArray, "register_array"},
    {SiteRole::SharedExtent, "shared_extent"},
    {SiteRole::TemplateArg, "template_arg"},
    {SiteRole::TemplateDefault, "template_default"},
    {SiteRole::UnrollPragma, "unroll_pragma"},
    {SiteRole::VectorBytes, "vector_bytes"},
    {SiteRole::VectorType, "vector_type"},
};
} // namespace

std::string_view siteRoleName(SiteRole role) {
  return nameOf(RoleNames, role, "other");
}

std::optional<SiteRole> parseSiteRole(std::string_view name) {
  return parseName(RoleNames, name);
}

std::ostream &operator<<(std::ostream &os, SiteRole role) {
  return os << siteRoleName(role);
}

} // namespace ktune
