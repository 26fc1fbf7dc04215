//===- CandidateRules.cpp - What a group of sites is ----------------------===//
//
// The rules that make a group of sites a candidate and describe it: which
// roles are evidence, the kind (roles first, then the name), the
// confidence, and the `why` shown to people and planners.
//
//===----------------------------------------------------------------------===//

#include "GroupInternal.h"

#include "llvm/Support/Path.h"

#include <algorithm>
#include <cctype>

namespace ktune::refactor {

bool CandidateGroup::hasRole(std::initializer_list<SiteRole> roles) const {
  for (const auto &s : sites)
    for (SiteRole r : roles)
      if (s.role == r || (s.role == SiteRole::Definition && s.useRole == r))
        return true;
  return false;
}

Position CandidateGroup::firstOffset() const {
  Position m = ~0u;
  for (const auto &s : sites)
    m = std::min(m, s.offset);
  return m;
}

bool isStrongRole(const Occurrence &o) {
  static const std::set<SiteRole> always = {
      SiteRole::SharedExtent, SiteRole::UnrollPragma, SiteRole::VectorBytes,
      SiteRole::RegisterArray};
  static const std::set<SiteRole> whenTop = {
      SiteRole::LaunchBlock,          SiteRole::LaunchBounds,
      SiteRole::CubBlockSize,         SiteRole::TemplateArg,
      SiteRole::TemplateDefault,      SiteRole::CubItemsPerThread,
      SiteRole::LaunchBoundsMinBlocks};
  std::optional<SiteRole> role = effectiveRole(o);
  if (!role)
    return false;
  if (always.count(*role))
    return true;
  // A named constant is spelled on purpose: `kWarps * 32` as the block.
  if (whenTop.count(*role))
    return o.top || !o.constant.empty();
  return false;
}

bool isEvidenceRole(const Occurrence &o) {
  std::optional<SiteRole> role = effectiveRole(o);
  return role && role != SiteRole::Other && role != SiteRole::IndexArith &&
         role != SiteRole::LaunchGrid && role != SiteRole::LaunchSmem;
}

std::optional<ParamKind> kindFromName(const std::string &name) {
  // "kThreadsPerBlock" -> "threadsperblock", "BLOCK_SIZE" -> "blocksize".
  std::string n;
  size_t start = name.size() > 1 && name[0] == 'k' &&
                         std::isupper(static_cast<unsigned char>(name[1]))
                     ? 1
                     : 0;
  for (size_t i = start; i < name.size(); ++i)
    if (name[i] != '_')
      n += static_cast<char>(std::tolower(static_cast<unsigned char>(name[i])));
  auto has = [&](const char *s) { return n.find(s) != std::string::npos; };
  auto is = [&](std::initializer_list<const char *> names) {
    for (const char *s : names)
      if (n == s)
        return true;
    return false;
  };
  if (has("warpsize") || has("warpthreads"))
    return std::nullopt;
  if (has("unroll"))
    return ParamKind::Unroll;
  if (has("tile") || is({"blockm", "blockn", "blockk", "bm", "bn", "bk"}))
    return ParamKind::TileSize;
  // Before the block sizes: kMaxItemsPerThreads ends in "threads".
  if (has("perthread"))
    return ParamKind::ItemsPerThread;
  if (has("threadsperblock") || has("blocksize") || has("blockdim") ||
      has("numthreads") || has("nthreads") || has("ctasize") ||
      has("blockwidth") || // a block's width in threads, no vector's
      has("blockthreads") || llvm::StringRef(n).ends_with("threads") ||
      is({"threads", "bs", "block", "blockx", "blocky", "blockz"}))
    return ParamKind::BlockSize; // VECMAT_THREADS: threads, not a width
  if (has("warps") || has("warpcount"))
    return ParamKind::WarpsPerBlock;
  if (has("perthread") || has("items") || is({"ipt", "elems", "elts"}))
    return ParamKind::ItemsPerThread;
  if (has("vec") || has("pack") || has("width"))
    return ParamKind::VectorWidth;
  // A block's memory (THREADBLOCK_MEMORY, kBlockBytes) is no block size.
  if (has("per") || has("blocks") || has("grid") || has("memory") ||
      has("bytes") || has("smem"))
    return ParamKind::Other;
  if (has("block") || has("threads"))
    return ParamKind::BlockSize;
  return std::nullopt;
}

std::optional<ParamKind> configArgKind(const Occurrence &o) {
  if (o.family.kind != Family::Kind::TemplateArg || o.family.typeName.empty())
    return std::nullopt;
  llvm::StringRef param =
      llvm::StringRef(o.family.typeName).rsplit("::").second;
  auto kind = kindFromName(param.str());
  if (!kind || *kind == ParamKind::Other)
    return std::nullopt;
  return kind;
}

bool isBlockTile(const CandidateGroup &g) {
  return g.hasRole({SiteRole::LaunchGrid}) &&
         g.hasRole({SiteRole::IndexArith}) &&
         !g.hasRole({SiteRole::LaunchBlock, SiteRole::LaunchBounds,
                     SiteRole::CubBlockSize, SiteRole::LoopStride});
}

ParamKind inferKind(const CandidateGroup &g) {
  if (g.informational)
    return ParamKind::VectorWidth;
  if (!g.sites.empty() &&
      std::all_of(g.sites.begin(), g.sites.end(), [](const Occurrence &o) {
        return o.family.kind == Family::Kind::GridSize;
      }))
    return ParamKind::GridSize;
  if (!g.sites.empty() &&
      std::all_of(g.sites.begin(), g.sites.end(), [](const Occurrence &o) {
        return o.role == SiteRole::LaunchBoundsMinBlocks;
      }))
    return ParamKind::MinBlocks;
  if (g.hasRole({SiteRole::UnrollPragma}))
    return ParamKind::Unroll;
  if (g.named)
    if (auto k = kindFromName(g.constantName))
      return *k;
  if (!g.boundName.empty())
    if (auto k = kindFromName(g.boundName))
      return *k;
  if (!g.sites.empty())
    if (auto k = configArgKind(g.sites.front()))
      return *k;
  if (g.hasRole({SiteRole::VectorBytes}))
    return ParamKind::VectorWidth;
  if (g.hasRole({SiteRole::SharedExtent}) &&
      (g.hasRole({SiteRole::IndexArith}) ||
       std::any_of(g.sites.begin(), g.sites.end(),
                   [](const Occurrence &o) {
                     return o.replacement != "{P}" &&
                            o.role == SiteRole::SharedExtent;
                   }) ||
       !g.hasRole({SiteRole::LaunchBlock, SiteRole::LaunchBounds,
                   SiteRole::CubBlockSize})))
    return ParamKind::TileSize;
  if (g.hasRole({SiteRole::LaunchBlock, SiteRole::LaunchBounds,
                 SiteRole::CubBlockSize, SiteRole::LoopStride}))
    return ParamKind::BlockSize;
  if (g.hasRole({SiteRole::CubItemsPerThread, SiteRole::RegisterArray}))
    return ParamKind::ItemsPerThread;
  if (isBlockTile(g))
    return ParamKind::TileSize;
  return ParamKind::Other;
}

std::string roleDescription(std::optional<SiteRole> role, int dim) {
  std::string_view text = role ? siteRoleDescription(*role) : "";
  if (text.empty())
    return "other use";
  bool axis = *role == SiteRole::LaunchBlock || *role == SiteRole::LaunchGrid;
  static const char *dims = "xyz";
  return std::string(text) +
         (axis && dim >= 0 && dim < 3 ? std::string(" ") + dims[dim] : "");
}

static std::string spellingDescription(const CandidateGroup &g,
                                       const Occurrence &first) {
  if (!g.named)
    return "literal " + std::to_string(g.value);
  switch (first.spelling) {
  case Spelling::Macro:
    return "macro " + g.constantName;
  case Spelling::Enumerator:
    return "enumerator " + g.constantName;
  default:
    return "constant " + g.constantName;
  }
}

std::string whyOf(const CandidateGroup &g, ParamKind kind,
                  const SourceFacts *facts) {
  if (g.informational)
    return "vector type " + g.sites.front().text + " (" +
           std::to_string(g.value) +
           " lanes) used for loads/stores; changing the width needs a type "
           "mapping and index changes, so it is reported but not rewritten";
  std::vector<std::string> parts;
  std::set<std::string> seen;
  for (const auto &s : g.sites) {
    std::string desc = roleDescription(effectiveRole(s), s.dim);
    if (s.replacement.find("+ 1") != std::string::npos)
      desc += " (padded +1)";
    if (s.replacement.find("- 1") != std::string::npos)
      desc += " (as value - 1)";
    if (!seen.insert(desc).second)
      continue;
    unsigned file = filePart(s.offset);
    parts.push_back(
        desc +
        (file != 0 && facts
             ? " at " + llvm::sys::path::filename(facts->pathOf(file)).str() +
                   ":"
             : std::string(" at line ")) +
        std::to_string(s.line));
  }
  std::string why = spellingDescription(g, g.sites.front()) + " used as ";
  if (!g.boundName.empty())
    parts.push_back("the kernel's template parameter " + g.boundName);
  for (const auto &s : g.sites)
    if (configArgKind(s) && seen.insert(s.family.typeName).second)
      parts.push_back("the configuration type's parameter " +
                      s.family.typeName);
  for (size_t i = 0; i < parts.size(); ++i)
    why += (i ? ", " : "") + parts[i];
  if (!g.unlinkedLines.empty()) {
    why += "; the value " + std::to_string(g.value) +
           " also appears without a recognised role at line";
    why += g.unlinkedLines.size() > 1 ? "s " : " ";
    for (size_t i = 0; i < g.unlinkedLines.size() && i < 6; ++i)
      why += (i ? ", " : "") + std::to_string(g.unlinkedLines[i]);
    why += " (left unchanged: check it is not the same constant)";
  }
  if (std::any_of(g.sites.begin(), g.sites.end(),
                  [](const Occurrence &o) { return !o.derivedExpr.empty(); }))
    why += "; it is computed from other constants (see the implied "
           "constraints): lift them together or not at all";
  if (g.named && !g.hasRole({SiteRole::LaunchBlock, SiteRole::LaunchBounds,
                             SiteRole::CubBlockSize, SiteRole::SharedExtent,
                             SiteRole::UnrollPragma, SiteRole::TemplateArg,
                             SiteRole::RegisterArray, SiteRole::VectorBytes,
                             SiteRole::CubItemsPerThread, SiteRole::LoopStride,
                             SiteRole::TemplateDefault}))
    why += "; kind " + std::string(kindName(kind)) + " inferred from its name";
  return why;
}

Confidence confidenceOf(const CandidateGroup &g) {
  if (g.informational)
    return Confidence::Low;
  // A constant computed from others: lifting it alone breaks the relation.
  if (std::any_of(g.sites.begin(), g.sites.end(),
                  [](const Occurrence &o) { return !o.derivedExpr.empty(); }))
    return Confidence::Medium;
  // `#pragma unroll 1` says "do not unroll", usually on purpose (a large
  // body, a few iterations): offered, lifted only when a plan asks.
  if (!g.named && g.value == 1 &&
      std::all_of(g.sites.begin(), g.sites.end(), [](const Occurrence &o) {
        return o.role == SiteRole::UnrollPragma;
      }))
    return Confidence::Medium;
  bool strong = std::any_of(g.sites.begin(), g.sites.end(), isStrongRole);
  // A grid-stride kernel's grid: its code was read to compute the same for
  // any grid size.
  if (inferKind(g) == ParamKind::GridSize)
    return Confidence::High;
  // A named tile that the grid and the kernel's block offset both read
  // (a block's tile, or its threads' items or unrolled steps, DeepSpeed's
  // `blockIdx.x * threads * unroll * T_per_access`): every use goes through
  // the name, the two sides change together.
  if (ParamKind kind = inferKind(g);
      g.named && isBlockTile(g) &&
      (kind == ParamKind::TileSize || kind == ParamKind::ItemsPerThread ||
       kind == ParamKind::Unroll))
    return Confidence::High;
  if (!strong)
    return Confidence::Medium;
  // A literal array extent whose value also appears unlinked in the kernel
  // (`local[64]` next to `% 64`) is as likely to break the kernel as to
  // tune it.
  if (!g.named && !g.unlinkedLines.empty() &&
      !g.hasRole({SiteRole::LaunchBlock, SiteRole::LaunchBounds,
                  SiteRole::CubBlockSize, SiteRole::UnrollPragma,
                  SiteRole::TemplateArg, SiteRole::TemplateDefault}))
    return Confidence::Low;
  if (g.hasRole({SiteRole::LaunchBlock, SiteRole::LaunchBounds,
                 SiteRole::CubBlockSize, SiteRole::UnrollPragma,
                 SiteRole::TemplateArg, SiteRole::TemplateDefault,
                 SiteRole::CubItemsPerThread}))
    return Confidence::High;
  if (g.named)
    return Confidence::High;
  return Confidence::Medium;
}

/// Roles in constant contexts, where a conversion changes nothing. A launch
/// dimension is no such context: `std::min(d / vec, 1024U)` deduces from it.
static bool isConstantContext(SiteRole role) {
  static const std::set<SiteRole> constant = {
      SiteRole::Definition,    SiteRole::SharedExtent,
      SiteRole::RegisterArray, SiteRole::UnrollPragma,
      SiteRole::LaunchBounds,  SiteRole::LaunchBoundsMinBlocks,
      SiteRole::CubBlockSize,  SiteRole::CubItemsPerThread,
      SiteRole::TemplateArg,   SiteRole::TemplateDefault,
      SiteRole::VectorBytes};
  return constant.count(role) != 0;
}

std::string groupType(const CandidateGroup &g) {
  for (const auto &s : g.sites)
    if (isStrongRole(s))
      return s.valueType;
  return g.sites.empty() ? std::string() : g.sites.front().valueType;
}

void finishReplacement(Occurrence &o, const std::string &paramType) {
  if (isConstantContext(o.role) || o.castType == paramType)
    return;
  std::string own = o.castType.empty() ? "int" : o.castType;
  o.replacement = "static_cast<" + own + ">(" + o.replacement + ")";
}

} // namespace ktune::refactor
