//===- SiteRole.cpp - Site roles and their JSON names ---------------------===//

#include "ktune/Plan/Candidates.h"

#include <ostream>

namespace ktune {

namespace {
/// Each role's spellings: its name in JSON files, how a candidate's "why"
/// describes such a site (empty: it says "other use"), and how a note at a
/// coupled site names it.
struct RoleSpelling {
  SiteRole role;
  std::string_view name, description, phrase;
};

constexpr RoleSpelling Roles[] = {
    {SiteRole::CubBlockSize, "cub_block_size", "cub block size",
     "cub block size"},
    {SiteRole::CubItemsPerThread, "cub_items_per_thread",
     "cub items per thread", "cub items per thread"},
    {SiteRole::Definition, "definition", "", "its definition"},
    {SiteRole::IndexArith, "index_arith", "index arithmetic with blockIdx",
     "index arithmetic"},
    {SiteRole::KernelAttributes, "kernel_attributes",
     "where the kernel's __launch_bounds__ takes a minimum",
     "kernel's launch bounds"},
    {SiteRole::KernelBody, "kernel_body", "the kernel's body", "kernel body"},
    {SiteRole::LaunchBlock, "launch_block", "launch block dim",
     "launch block dimension"},
    {SiteRole::LaunchBounds, "launch_bounds", "__launch_bounds__ max threads",
     "__launch_bounds__"},
    {SiteRole::LaunchBoundsMinBlocks, "launch_bounds_min_blocks",
     "__launch_bounds__ min blocks per SM", "__launch_bounds__ minimum blocks"},
    {SiteRole::LaunchGrid, "launch_grid", "grid arithmetic",
     "launch grid arithmetic"},
    {SiteRole::LaunchSmem, "launch_smem", "dynamic shared memory size",
     "launch shared-memory size"},
    {SiteRole::LoopBound, "loop_bound", "loop bound", "loop bound"},
    {SiteRole::LoopStride, "loop_stride", "loop stride", "loop stride"},
    {SiteRole::Other, "other", "", "use"},
    {SiteRole::RegisterArray, "register_array", "register array extent",
     "register array extent"},
    {SiteRole::SharedExtent, "shared_extent", "__shared__ array extent",
     "__shared__ array extent"},
    {SiteRole::TemplateArg, "template_arg", "template argument at a launch",
     "template argument"},
    {SiteRole::TemplateDefault, "template_default",
     "default of a kernel template parameter", "template default"},
    {SiteRole::UnrollPragma, "unroll_pragma", "#pragma unroll count",
     "#pragma unroll"},
    {SiteRole::VectorBytes, "vector_bytes",
     "vector width in bytes (N / sizeof(T))", "vector access width"},
    {SiteRole::VectorType, "vector_type", "vector type for loads/stores",
     "vector type"},
};

/// The row of `role`; a value no row lists reads as `other`.
const RoleSpelling &spellingOf(SiteRole role) {
  for (const RoleSpelling &r : Roles)
    if (r.role == role)
      return r;
  return spellingOf(SiteRole::Other);
}
} // namespace

std::string_view siteRoleName(SiteRole role) { return spellingOf(role).name; }

std::string_view siteRoleDescription(SiteRole role) {
  return spellingOf(role).description;
}

std::string_view siteRolePhrase(SiteRole role) {
  return spellingOf(role).phrase;
}

std::optional<SiteRole> parseSiteRole(std::string_view name) {
  for (const RoleSpelling &r : Roles)
    if (r.name == name)
      return r.role;
  return std::nullopt;
}

std::ostream &operator<<(std::ostream &os, SiteRole role) {
  return os << siteRoleName(role);
}

bool delimitsItsSite(SiteRole role) {
  switch (role) {
  case SiteRole::Definition:
  case SiteRole::SharedExtent:
  case SiteRole::RegisterArray:
  case SiteRole::UnrollPragma:
  case SiteRole::LaunchBounds:
  case SiteRole::LaunchBoundsMinBlocks:
  case SiteRole::CubBlockSize:
  case SiteRole::CubItemsPerThread:
  case SiteRole::TemplateArg:
  case SiteRole::TemplateDefault:
  case SiteRole::KernelAttributes:
    return true;
  default:
    return false;
  }
}

} // namespace ktune
