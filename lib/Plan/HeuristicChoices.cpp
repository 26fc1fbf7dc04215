//===- HeuristicChoices.cpp - Names and domains of lifted candidates ------===//
#include "HeuristicChoices.h"

#include "ktune/Expr/Expr.h"

#include <algorithm>
#include <cctype>
#include <limits>

namespace ktune::heuristic {

std::string upperSnake(std::string_view spelling) {
  if (spelling.size() > 1 && spelling[0] == 'k' &&
      std::isupper(static_cast<unsigned char>(spelling[1])))
    spelling.remove_prefix(1);
  std::string out;
  for (size_t i = 0; i < spelling.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(spelling[i]);
    if (!std::isalnum(c) && c != '_')
      return {};
    if (std::isupper(c) && i > 0) {
      unsigned char prev = static_cast<unsigned char>(spelling[i - 1]);
      if (std::islower(prev) || std::isdigit(prev))
        out += '_';
    }
    if (c == '_' && (out.empty() || out.back() == '_'))
      continue;
    out += static_cast<char>(std::toupper(c));
  }
  while (!out.empty() && out.back() == '_')
    out.pop_back();
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0])))
    return {};
  return out;
}

/// 'X', 'Y' or 'Z' when the spelling names one dimension ("kBlockX",
/// "TILE_Y", "block_dim_z"), else 0.
static char dimensionOf(std::string_view spelling) {
  if (spelling.size() < 2)
    return 0;
  char last = spelling.back();
  char prev = spelling[spelling.size() - 2];
  char upper =
      static_cast<char>(std::toupper(static_cast<unsigned char>(last)));
  if (upper != 'X' && upper != 'Y' && upper != 'Z')
    return 0;
  bool camel = std::isupper(static_cast<unsigned char>(last)) &&
               std::islower(static_cast<unsigned char>(prev));
  return (prev == '_' || camel) ? upper : 0;
}

std::string baseName(const Candidate &c) {
  std::string base;
  switch (c.kind) {
  case ParamKind::BlockSize:
    base = "BLOCK_SIZE";
    break;
  case ParamKind::TileSize:
    base = "TILE";
    break;
  case ParamKind::Unroll:
    return "UNROLL";
  case ParamKind::VectorWidth:
    return "VEC";
  case ParamKind::ItemsPerThread:
    return "ITEMS_PER_THREAD";
  case ParamKind::WarpsPerBlock:
    return "WARPS_PER_BLOCK";
  case ParamKind::GridSize:
    return "GRID_SIZE";
  case ParamKind::RowSplit:
    return "ROW_SPLIT";
  case ParamKind::MinBlocks:
    return "MIN_BLOCKS";
  case ParamKind::FixedArg: {
    std::string derived = "FIXED_" + upperSnake(c.fixesArgument);
    return expr::isValidIdentifier(derived) ? derived : "FIXED_ARG";
  }
  case ParamKind::Other: {
    std::string derived = upperSnake(c.spelling);
    return expr::isValidIdentifier(derived) ? derived : "PARAM";
  }
  }
  if (char dim = dimensionOf(c.spelling))
    base += std::string("_") + dim;
  return base;
}

static std::vector<int64_t> withDefault(std::vector<int64_t> values,
                                        int64_t def) {
  if (std::find(values.begin(), values.end(), def) == values.end())
    values.push_back(def);
  std::sort(values.begin(), values.end());
  return values;
}

static std::vector<int64_t> powersOfTwo(int64_t from, int64_t to) {
  std::vector<int64_t> out;
  for (int64_t v = from; v <= to; v *= 2)
    out.push_back(v);
  return out;
}

static bool mentionsSizeof(const Candidate &c) {
  return c.spelling.find("sizeof") != std::string::npos ||
         c.why.find("sizeof") != std::string::npos;
}

bool blockOfOneLaunch(const Candidate &c) {
  if (c.launchParam)
    return true;
  bool templateArg = false;
  for (const auto &s : c.sites) {
    if (s.role != SiteRole::TemplateArg && s.role != SiteRole::LaunchBlock)
      return false;
    templateArg |= s.role == SiteRole::TemplateArg;
  }
  return templateArg;
}

ChosenDomain domainFor(const Candidate &c, bool multiDimBlock) {
  int64_t d = c.value;
  switch (c.kind) {
  case ParamKind::BlockSize:
    if (multiDimBlock)
      return {Domain::ofValues(withDefault(powersOfTwo(1, 1024), d)), {}};
    return {Domain::ofValues(withDefault(powersOfTwo(32, 1024), d)), {}};
  case ParamKind::WarpsPerBlock:
    return {Domain::ofValues(withDefault(powersOfTwo(1, 32), d)), {}};
  case ParamKind::GridSize:
    return {Domain::ofValues(withDefault(powersOfTwo(16, 8192), d)), {}};
  case ParamKind::RowSplit:
    return {Domain::ofValues(powersOfTwo(1, 32)), {}};
  case ParamKind::MinBlocks:
    return {Domain::ofValues(withDefault({0, 1, 2, 3, 4, 6, 8}, d)), {}};
  case ParamKind::FixedArg: // the shapes' values join it when tuned
    return {Domain::ofValues({0}), {}};
  case ParamKind::TileSize:
    return {Domain::ofValues(withDefault(powersOfTwo(8, 64), d)), {}};
  case ParamKind::Unroll:
  case ParamKind::ItemsPerThread:
    return {Domain::ofValues(withDefault(powersOfTwo(1, 16), d)), {}};
  case ParamKind::VectorWidth:
    if (mentionsSizeof(c))
      return {Domain::ofValues(powersOfTwo(1, d)),
              "the original width depends on sizeof (spelled '" + c.spelling +
                  "'): no wider vector than the original is tried, since "
                  "vector accesses are at most 16 bytes"};
    return {Domain::ofValues(withDefault(powersOfTwo(1, 16), d)), {}};
  case ParamKind::Other:
    break;
  }
  std::vector<int64_t> values = {d};
  if (d > 1)
    values.push_back(d / 2);
  if (d > 0 && d <= std::numeric_limits<int32_t>::max() / 2)
    values.push_back(d * 2);
  return {Domain::ofValues(withDefault(values, d)),
          "kind unknown: the domain only halves and doubles the original"};
}

} // namespace ktune::heuristic

namespace ktune {

std::string suggestedParamName(const Candidate &c) {
  return heuristic::baseName(c);
}

} // namespace ktune
