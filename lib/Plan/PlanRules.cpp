#include "PlanRules.h"

#include "ktune/Plan/SourceScan.h"

#include <algorithm>
#include <limits>

namespace ktune::plan_rules {

KindRange kindRange(ParamKind kind) {
  constexpr int64_t IntMax = std::numeric_limits<int32_t>::max();
  constexpr int64_t IntMin = std::numeric_limits<int32_t>::min();
  switch (kind) {
  case ParamKind::BlockSize:
    return {1, 1024, false, "a block has 1 to 1024 threads per dimension"};
  case ParamKind::WarpsPerBlock:
    return {1, 32, false, "a block has 1 to 32 warps"};
  case ParamKind::GridSize:
    return {1, IntMax, false, "a grid has at least 1 block"};
  case ParamKind::RowSplit:
    return {1, 256, true,
            "a row splits over a power of two of 1 to 256 blocks"};
  case ParamKind::MinBlocks:
    return {0, 32, false,
            "a minimum of resident blocks per SM is 0 (none) to 32"};
  case ParamKind::FixedArg:
    return {IntMin, IntMax, false,
            "a fixed argument is 0 (read at run time) or the argument's value"};
  case ParamKind::VectorWidth:
    return {1, 16, true, "a vector width is a power of two from 1 to 16"};
  case ParamKind::Unroll:
    return {1, IntMax, false, "an unroll factor is at least 1"};
  case ParamKind::TileSize:
    return {1, IntMax, false, "a tile size is at least 1"};
  case ParamKind::ItemsPerThread:
    return {1, IntMax, false, "items per thread is at least 1"};
  case ParamKind::Other:
    break;
  }
  return {IntMin, IntMax, false, "a parameter is an int"};
}

bool allowedValue(ParamKind kind, int64_t value) {
  KindRange r = kindRange(kind);
  if (value < r.min || value > r.max)
    return false;
  return !r.pow2 || (value > 0 && (value & (value - 1)) == 0);
}

std::string location(const SourceSite &site) {
  return site.file + ":" + std::to_string(site.line) + ":" +
         std::to_string(site.col);
}

static std::string shown(std::string_view text) {
  std::string out;
  for (char c : text.substr(0, 60)) {
    if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (static_cast<unsigned char>(c) < 0x20)
      out += '?';
    else
      out += c;
  }
  if (text.size() > 60)
    out += "...";
  return "\"" + out + "\"";
}

std::optional<std::string> siteMismatch(const SourceSite &site,
                                        const SourceTexts &sources) {
  auto it = sources.find(site.file);
  if (it == sources.end())
    return "the source text of " + site.file +
           " was not given, so the site cannot be checked";
  const std::string &text = it->second;
  uint64_t end = uint64_t(site.offset) + site.length;
  if (end > text.size())
    return "the site ends at byte " + std::to_string(end) + " but " +
           site.file + " has " + std::to_string(text.size()) +
           " bytes: the source changed since the candidates were found";
  std::string_view actual =
      std::string_view(text).substr(site.offset, site.length);
  if (actual != site.text)
    return "the source reads " + shown(actual) +
           " where the candidate "
           "expects " +
           shown(site.text) +
           ": the source changed since the candidates were found";
  source_scan::Position p = source_scan::positionOf(text, site.offset);
  if (p.line != site.line || p.col != site.col)
    return "byte offset " + std::to_string(site.offset) + " is at " +
           std::to_string(p.line) + ":" + std::to_string(p.col) +
           ", not at the site's " + std::to_string(site.line) + ":" +
           std::to_string(site.col);
  return std::nullopt;
}

bool samePlace(const SourceSite &a, const SourceSite &b) {
  return a.file == b.file && a.offset == b.offset && a.length == b.length &&
         a.before == b.before && a.after == b.after;
}

bool editsOverlap(const SourceSite &a, const SourceSite &b) {
  if (a.file != b.file)
    return false;
  // Insertions of different text at one place are both made (the local
  // constants shadowing two header constants).
  if (a.length == 0 && b.length == 0 && a.offset == b.offset &&
      (a.before != b.before || a.after != b.after))
    return false;
  uint64_t aEnd = uint64_t(a.offset) + std::max(1u, a.length);
  uint64_t bEnd = uint64_t(b.offset) + std::max(1u, b.length);
  return a.offset < bEnd && b.offset < aEnd;
}

} // namespace ktune::plan_rules
