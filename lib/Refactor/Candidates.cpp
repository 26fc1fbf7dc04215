//===- Candidates.cpp - Grouping sites into candidates --------------------===//
//
// A candidate is one constant of one kernel with every site that must change
// with it. Named constants (macros, constants, enumerators) group by name;
// literals group by role family and value: the 256 of a launch's block dims,
// of __launch_bounds__ and of cub::BlockReduce<float, 256> is one candidate,
// and a loop stride or grid divisor of that value joins it. Literals in no
// such role are never sites.
//
//===----------------------------------------------------------------------===//

#include "ktune/Expr/Expr.h"
#include "ktune/Refactor/Detection.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace ktune::refactor {
namespace {

struct Group {
  std::string kernel; // kernel id
  std::vector<Occurrence> sites;
  std::string constantName; // named groups
  bool named = false;
  int64_t value = 0;
  int boundParam = -1;
  std::string boundName;      // name of the kernel template parameter it sets
  bool informational = false; // vector types: not rewritable
  /// Lines where a literal of the group's value appears in no known role.
  std::vector<unsigned> unlinkedLines;

  bool hasRole(std::initializer_list<const char *> roles) const {
    for (const auto &s : sites)
      for (const char *r : roles)
        if (s.role == r || (s.role == "definition" && s.useRole == r))
          return true;
    return false;
  }
  unsigned firstOffset() const {
    unsigned m = ~0u;
    for (const auto &s : sites)
      m = std::min(m, s.offset);
    return m;
  }
};

bool isStrongRole(const Occurrence &o) {
  static const std::set<std::string> always = {
      "shared_extent", "unroll_pragma", "vector_bytes", "register_array"};
  static const std::set<std::string> whenTop = {"launch_block",
                                                "launch_bounds",
                                                "cub_block_size",
                                                "template_arg",
                                                "template_default",
                                                "cub_items_per_thread",
                                                "launch_bounds_min_blocks"};
  const std::string &role = o.role == "definition" ? o.useRole : o.role;
  if (always.count(role))
    return true;
  // A named constant is spelled on purpose: `kWarps * 32` as the block.
  if (whenTop.count(role))
    return o.top || !o.constant.empty();
  return false;
}

/// Evidence for a named constant: any role except plain uses.
bool isEvidenceRole(const Occurrence &o) {
  const std::string &role = o.role == "definition" ? o.useRole : o.role;
  return !role.empty() && role != "other" && role != "index_arith" &&
         role != "launch_grid" && role != "launch_smem";
}

/// What an engineer's name says about a constant.
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
  if (has("threadsperblock") || has("blocksize") || has("blockdim") ||
      has("numthreads") || has("nthreads") || has("ctasize") ||
      has("blockthreads") ||
      is({"threads", "bs", "block", "blockx", "blocky", "blockz"}))
    return ParamKind::BlockSize;
  if (has("warps"))
    return ParamKind::WarpsPerBlock;
  if (has("perthread") || has("items") || is({"ipt", "elems", "elts"}))
    return ParamKind::ItemsPerThread;
  if (has("vec") || has("pack") || has("width"))
    return ParamKind::VectorWidth;
  if (has("per") || has("blocks") || has("grid"))
    return ParamKind::Other;
  if (has("block") || has("threads"))
    return ParamKind::BlockSize;
  return std::nullopt;
}

ParamKind inferKind(const Group &g) {
  if (g.informational)
    return ParamKind::VectorWidth;
  if (g.hasRole({"unroll_pragma"}))
    return ParamKind::Unroll;
  if (g.named)
    if (auto k = kindFromName(g.constantName))
      return *k;
  if (!g.boundName.empty())
    if (auto k = kindFromName(g.boundName))
      return *k;
  if (g.hasRole({"vector_bytes"}))
    return ParamKind::VectorWidth;
  if (g.hasRole({"shared_extent"}) &&
      (g.hasRole({"index_arith"}) ||
       std::any_of(g.sites.begin(), g.sites.end(),
                   [](const Occurrence &o) {
                     return o.replacement != "{P}" && o.role == "shared_extent";
                   }) ||
       !g.hasRole({"launch_block", "launch_bounds", "cub_block_size"})))
    return ParamKind::TileSize;
  if (g.hasRole(
          {"launch_block", "launch_bounds", "cub_block_size", "loop_stride"}))
    return ParamKind::BlockSize;
  if (g.hasRole({"cub_items_per_thread", "register_array"}))
    return ParamKind::ItemsPerThread;
  return ParamKind::Other;
}

const char *abbreviation(ParamKind k) {
  switch (k) {
  case ParamKind::BlockSize:
    return "bs";
  case ParamKind::TileSize:
    return "ts";
  case ParamKind::Unroll:
    return "ur";
  case ParamKind::VectorWidth:
    return "vw";
  case ParamKind::ItemsPerThread:
    return "ipt";
  case ParamKind::WarpsPerBlock:
    return "wpb";
  case ParamKind::Other:
    return "ot";
  }
  return "ot";
}

uint64_t fnv1a(const std::string &s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string hex(uint64_t v, unsigned digits) {
  static const char *d = "0123456789abcdef";
  std::string out(digits, '0');
  for (unsigned i = 0; i < digits; ++i)
    out[digits - 1 - i] = d[(v >> (4 * i)) & 0xf];
  return out;
}

std::string roleDescription(const std::string &role, int dim) {
  static const char *dims = "xyz";
  std::string d = dim >= 0 && dim < 3 ? std::string(" ") + dims[dim] : "";
  if (role == "launch_block")
    return "launch block dim" + d;
  if (role == "launch_grid")
    return "grid arithmetic" + d;
  if (role == "launch_smem")
    return "dynamic shared memory size";
  if (role == "launch_bounds")
    return "__launch_bounds__ max threads";
  if (role == "launch_bounds_min_blocks")
    return "__launch_bounds__ min blocks per SM";
  if (role == "cub_block_size")
    return "cub block size";
  if (role == "cub_items_per_thread")
    return "cub items per thread";
  if (role == "template_arg")
    return "template argument at a launch";
  if (role == "template_default")
    return "default of a kernel template parameter";
  if (role == "loop_stride")
    return "loop stride";
  if (role == "loop_bound")
    return "loop bound";
  if (role == "shared_extent")
    return "__shared__ array extent";
  if (role == "register_array")
    return "register array extent";
  if (role == "unroll_pragma")
    return "#pragma unroll count";
  if (role == "vector_bytes")
    return "vector width in bytes (N / sizeof(T))";
  if (role == "vector_type")
    return "vector type for loads/stores";
  if (role == "index_arith")
    return "index arithmetic with blockIdx";
  return "other use";
}

std::string spellingDescription(const Group &g, const Occurrence &first) {
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

std::string whyOf(const Group &g, ParamKind kind) {
  if (g.informational)
    return "vector type " + g.sites.front().text + " (" +
           std::to_string(g.value) +
           " lanes) used for loads/stores; changing the width needs a type "
           "mapping and index changes, so it is reported but not rewritten";
  std::vector<std::string> parts;
  std::set<std::string> seen;
  for (const auto &s : g.sites) {
    std::string role = s.role == "definition" ? s.useRole : s.role;
    std::string desc = roleDescription(role, s.dim);
    if (s.replacement.find("+ 1") != std::string::npos)
      desc += " (padded +1)";
    if (s.replacement.find("- 1") != std::string::npos)
      desc += " (as value - 1)";
    if (!seen.insert(desc).second)
      continue;
    parts.push_back(desc + " at line " + std::to_string(s.line));
  }
  std::string why = spellingDescription(g, g.sites.front()) + " used as ";
  if (!g.boundName.empty())
    parts.push_back("the kernel's template parameter " + g.boundName);
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
  if (g.named &&
      !g.hasRole({"launch_block", "launch_bounds", "cub_block_size",
                  "shared_extent", "unroll_pragma", "template_arg",
                  "register_array", "vector_bytes", "cub_items_per_thread",
                  "loop_stride", "template_default"}))
    why += "; kind " + std::string(kindName(kind)) + " inferred from its name";
  return why;
}

Confidence confidenceOf(const Group &g) {
  if (g.informational)
    return Confidence::Low;
  // A constant computed from others: lifting it alone breaks the relation.
  if (std::any_of(g.sites.begin(), g.sites.end(),
                  [](const Occurrence &o) { return !o.derivedExpr.empty(); }))
    return Confidence::Medium;
  bool strong = std::any_of(g.sites.begin(), g.sites.end(), isStrongRole);
  if (!strong)
    return Confidence::Medium;
  // A literal array extent whose value also appears unlinked in the kernel
  // (`local[64]` next to `% 64`) is as likely to break the kernel as to
  // tune it.
  if (!g.named && !g.unlinkedLines.empty() &&
      !g.hasRole({"launch_block", "launch_bounds", "cub_block_size",
                  "unroll_pragma", "template_arg", "template_default"}))
    return Confidence::Low;
  if (g.hasRole({"launch_block", "launch_bounds", "cub_block_size",
                 "unroll_pragma", "template_arg", "template_default",
                 "cub_items_per_thread"}))
    return Confidence::High;
  if (g.named)
    return Confidence::High;
  return Confidence::Medium;
}

/// Roles in constant contexts, where a conversion changes nothing.
bool needsCast(const Occurrence &o) {
  static const std::set<std::string> constant = {
      "definition",       "shared_extent",        "register_array",
      "unroll_pragma",    "launch_bounds",        "launch_bounds_min_blocks",
      "cub_block_size",   "cub_items_per_thread", "template_arg",
      "template_default", "vector_bytes",         "launch_block"};
  return !o.castType.empty() && !constant.count(o.role);
}

void finishReplacement(Occurrence &o) {
  if (needsCast(o))
    o.replacement = "static_cast<" + o.castType + ">(" + o.replacement + ")";
}

/// Canonical text of a constraint over "{id}" placeholders.
std::optional<std::string> canonical(const std::string &text) {
  std::string plain;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '{') {
      size_t end = text.find('}', i);
      plain += "KTUNECAND_" + text.substr(i + 1, end - i - 1);
      i = end;
    } else {
      plain += text[i];
    }
  }
  auto e = expr::Expr::parse(plain);
  if (!e)
    return std::nullopt;
  std::string out = e->str();
  std::string result;
  for (size_t i = 0; i < out.size();) {
    if (out.compare(i, 10, "KTUNECAND_") == 0) {
      size_t j = i + 10;
      while (
          j < out.size() &&
          (std::isalnum(static_cast<unsigned char>(out[j])) || out[j] == '_'))
        ++j;
      result += "{" + out.substr(i + 10, j - i - 10) + "}";
      i = j;
    } else {
      result += out[i++];
    }
  }
  return result;
}

bool holdsAtDefaults(const std::string &text,
                     const std::map<std::string, int64_t> &values) {
  std::string plain;
  std::map<std::string, expr::Value> env;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '{') {
      size_t end = text.find('}', i);
      std::string id = text.substr(i + 1, end - i - 1);
      plain += "KTUNECAND_" + id;
      auto it = values.find(id);
      if (it == values.end())
        return false;
      env["KTUNECAND_" + id] = expr::Value::ofInt(it->second);
      i = end;
    } else {
      plain += text[i];
    }
  }
  auto e = expr::Expr::parse(plain);
  if (!e)
    return false;
  auto v = e->evaluate(env);
  return v && v->truthy();
}

} // namespace

CandidateSet buildCandidates(const SourceFacts &facts, CandidateIndex &index) {
  CandidateSet set;
  set.file = facts.file;
  std::vector<Group> groups;

  for (const FunctionFacts *kernel : facts.kernels()) {
    // A kernel that cannot become a template has nothing to lift.
    if (!kernel->cannotTemplate.empty())
      continue;
    // Template parameters that launches spell differently (dequant<QK8_0>
    // and dequant<QK4_0>, concat<0> and concat<2>) are a dispatch even when
    // the values are equal or some are not constants we track: none of
    // their arguments is a knob, nor any constant passed to them.
    std::set<int> dispatchParams;
    {
      std::map<size_t, std::set<std::string>> spellings;
      for (const CallFacts &call : facts.calls) {
        // Overloads count as one kernel: the arguments pick the overload.
        const FunctionFacts *callee = facts.function(call.callee);
        if (!call.isLaunch || !callee ||
            callee->qualifiedName != kernel->qualifiedName)
          continue;
        for (size_t i = 0; i < call.explicitArgs.size(); ++i) {
          std::string text;
          for (char ch : call.explicitArgs[i])
            if (!std::isspace(static_cast<unsigned char>(ch)))
              text += ch;
          spellings[i].insert(text);
        }
      }
      for (const auto &[i, texts] : spellings)
        if (texts.size() > 1)
          dispatchParams.insert(static_cast<int>(i));
    }
    std::set<std::string> dispatchConstants;
    for (const auto &o : facts.occurrences)
      if (o.kernel == kernel->id && o.role == "template_arg" &&
          dispatchParams.count(o.boundParam) && !o.constant.empty())
        dispatchConstants.insert(o.constant);
    std::vector<Occurrence> occs;
    for (const auto &o : facts.occurrences) {
      if (o.kernel != kernel->id)
        continue;
      if (o.role == "template_arg" && dispatchParams.count(o.boundParam))
        continue;
      if (!o.constant.empty() && dispatchConstants.count(o.constant))
        continue;
      occs.push_back(o);
    }

    std::map<std::string, Group> named;  // by constant
    std::map<int64_t, Group> block;      // "block" family by value
    std::map<int64_t, Group> ipt;        // "ipt" family by value
    std::map<int64_t, Group> vecbytes;   // "vecbytes" by value
    std::map<std::string, Group> single; // one group per family key
    std::map<std::string, std::map<int64_t, Group>> targs; // by param
    std::vector<Occurrence> weak;
    std::map<int64_t, std::vector<unsigned>> unlinked; // value -> lines

    for (auto &o : occs) {
      if (o.family == "unlinked") {
        unlinked[o.value].push_back(o.line);
        continue;
      }
      if (!o.constant.empty()) {
        Group &g = named[o.constant];
        g.kernel = kernel->id;
        g.named = true;
        g.constantName = o.constantName;
        g.value = o.baseValue;
        if (o.boundParam >= 0)
          g.boundParam = o.boundParam;
        g.sites.push_back(o);
        continue;
      }
      const std::string &fam = o.family;
      if (fam == "block") {
        if (isStrongRole(o)) {
          Group &g = block[o.value];
          g.kernel = kernel->id;
          g.value = o.value;
          g.sites.push_back(o);
        } else {
          weak.push_back(o);
        }
      } else if (fam == "ipt" || fam == "vecbytes") {
        Group &g = (fam == "ipt" ? ipt : vecbytes)[o.value];
        g.kernel = kernel->id;
        g.value = o.value;
        g.sites.push_back(o);
      } else if (fam.rfind("targ@", 0) == 0) {
        Group &g = targs[fam][o.value];
        g.kernel = kernel->id;
        g.value = o.value;
        g.boundParam = o.boundParam;
        g.sites.push_back(o);
      } else if (fam.rfind("unroll@", 0) == 0 || fam.rfind("items@", 0) == 0 ||
                 fam.rfind("minblocks@", 0) == 0 ||
                 fam.rfind("vectype:", 0) == 0) {
        Group &g = single[fam];
        g.kernel = kernel->id;
        g.value = o.value;
        g.informational = fam.rfind("vectype:", 0) == 0;
        g.sites.push_back(o);
      }
    }

    // tile[32][33]: the 33 is the 32 tile padded by one.
    for (auto it = block.begin(); it != block.end();) {
      auto below = block.find(it->first - 1);
      bool onlyExtents = std::all_of(
          it->second.sites.begin(), it->second.sites.end(),
          [](const Occurrence &o) { return o.role == "shared_extent"; });
      if (below != block.end() && onlyExtents &&
          below->second.hasRole({"shared_extent"})) {
        for (auto s : it->second.sites) {
          s.replacement = "{P} + 1";
          s.baseValue = s.value - 1;
          below->second.sites.push_back(s);
        }
        it = block.erase(it);
      } else {
        ++it;
      }
    }
    // Weak literal sites join a group of their value; in grid arithmetic a
    // value one below a group is that group minus one ((n + 255) / 256).
    for (auto o : weak) {
      if (auto it = block.find(o.value); it != block.end()) {
        it->second.sites.push_back(o);
      } else if (auto ip = ipt.find(o.value);
                 ip != ipt.end() && o.role == "index_arith") {
        // blockIdx.x * 128 * 4: a block's share of items.
        ip->second.sites.push_back(o);
      } else if (o.role == "launch_grid") {
        if (auto up = block.find(o.value + 1); up != block.end()) {
          o.replacement = "{P} - 1";
          o.baseValue = o.value + 1;
          up->second.sites.push_back(o);
        }
      }
    }
    // Launch template arguments: consistent across launches, else dropped.
    for (auto &[fam, byValue] : targs) {
      if (byValue.size() != 1)
        continue; // different launches pass different values: a dispatch
      Group g = byValue.begin()->second;
      if (auto it = block.find(g.value); it != block.end()) {
        for (auto &s : g.sites)
          it->second.sites.push_back(s);
        it->second.boundParam = g.boundParam;
      } else {
        single[fam] = g;
      }
    }
    // Named constants: qualify by role evidence or a telling name.
    std::vector<Group> namedGroups;
    for (auto &[key, g] : named) {
      bool evidence =
          std::any_of(g.sites.begin(), g.sites.end(), isEvidenceRole);
      // Enumerators name cases (PACK_SCALED, LAYOUT_B) more often than
      // sizes: their name alone is no evidence.
      bool enumerator = g.sites.front().spelling == Spelling::Enumerator;
      if (!evidence && (enumerator || !kindFromName(g.constantName)))
        continue;
      namedGroups.push_back(g);
    }
    // A named block/tile constant absorbs literal block groups of its value
    // (the kernel's kBlock in cub, the host's literal 256 at the launch).
    for (auto &g : namedGroups) {
      ParamKind k = inferKind(g);
      if (k != ParamKind::BlockSize && k != ParamKind::TileSize)
        continue;
      if (auto it = block.find(g.value); it != block.end()) {
        for (auto &s : it->second.sites)
          g.sites.push_back(s);
        if (it->second.boundParam >= 0)
          g.boundParam = it->second.boundParam;
        block.erase(it);
      }
    }
    // Two named block-size constants of equal value, one only on the host
    // launch and one only in the kernel, are the same knob.
    for (size_t i = 0; i < namedGroups.size(); ++i) {
      for (size_t j = i + 1; j < namedGroups.size(); ++j) {
        Group &a = namedGroups[i], &b = namedGroups[j];
        if (a.sites.empty() || b.sites.empty() || a.value != b.value ||
            inferKind(a) != ParamKind::BlockSize ||
            inferKind(b) != ParamKind::BlockSize)
          continue;
        auto hostOnly = [&](const Group &g) {
          return std::all_of(
              g.sites.begin(), g.sites.end(),
              [&](const Occurrence &o) { return o.function != kernel->id; });
        };
        auto kernelOnly = [&](const Group &g) {
          return std::all_of(
              g.sites.begin(), g.sites.end(),
              [&](const Occurrence &o) { return o.function == kernel->id; });
        };
        if ((hostOnly(a) && kernelOnly(b)) || (hostOnly(b) && kernelOnly(a))) {
          Group &keep = kernelOnly(a) ? a : b;
          Group &drop = kernelOnly(a) ? b : a;
          for (auto &s : drop.sites)
            keep.sites.push_back(s);
          drop.sites.clear();
        }
      }
    }
    for (auto &g : namedGroups)
      if (!g.sites.empty())
        groups.push_back(std::move(g));
    for (auto &[v, g] : block) {
      if (auto it = unlinked.find(v); it != unlinked.end())
        g.unlinkedLines = it->second;
      groups.push_back(std::move(g));
    }
    for (auto &[v, g] : ipt)
      if (g.hasRole({"cub_items_per_thread", "register_array"}))
        groups.push_back(std::move(g));
    for (auto &[v, g] : vecbytes)
      if (g.hasRole({"vector_bytes"}))
        groups.push_back(std::move(g));
    for (auto &[f, g] : single)
      groups.push_back(std::move(g));
  }

  // Stable ids: kind + kernel + first site.
  std::set<std::string> used;
  std::map<const Group *, std::string> ids;
  for (auto &g : groups) {
    const FunctionFacts *k = facts.function(g.kernel);
    if (g.boundParam >= 0 &&
        g.boundParam < static_cast<int>(k->templateParams.size()))
      g.boundName = k->templateParams[g.boundParam].name;
    std::sort(g.sites.begin(), g.sites.end(),
              [](const Occurrence &a, const Occurrence &b) {
                return a.offset < b.offset;
              });
    g.sites.erase(std::unique(g.sites.begin(), g.sites.end(),
                              [](const Occurrence &a, const Occurrence &b) {
                                return a.offset == b.offset;
                              }),
                  g.sites.end());
    for (auto &s : g.sites)
      finishReplacement(s);
  }
  std::sort(groups.begin(), groups.end(), [&](const Group &a, const Group &b) {
    return std::make_pair(facts.function(a.kernel)->offset, a.firstOffset()) <
           std::make_pair(facts.function(b.kernel)->offset, b.firstOffset());
  });

  std::map<std::string, int64_t> values;
  std::map<std::pair<std::string, std::string>, std::string> idOfConstant;
  std::map<std::string, int> seedCount;
  for (auto &g : groups) {
    const FunctionFacts *kernel = facts.function(g.kernel);
    ParamKind kind = inferKind(g);
    const Occurrence &first = g.sites.front();
    // No line numbers: an edit elsewhere in the file keeps the ids (and the
    // plans that use them) valid; equal seeds are told apart by their order.
    std::string seed = std::string(kindName(kind)) + "|" +
                       kernel->qualifiedName + "|" + first.text + "|" +
                       first.role;
    seed += "|" + std::to_string(seedCount[seed]++);
    uint64_t h = fnv1a(seed);
    std::string id;
    for (unsigned digits = 4; digits <= 16; digits += 2) {
      id = std::string("c_") + abbreviation(kind) + "_" + hex(h, digits);
      if (!used.count(id))
        break;
    }
    used.insert(id);
    ids[&g] = id;

    Candidate c;
    c.id = id;
    c.kind = kind;
    c.kernel = facts.kernelPlanName(*kernel);
    c.value = g.named ? g.value : g.sites.front().baseValue;
    if (!g.named)
      for (const auto &s : g.sites)
        if (s.replacement == "{P}") {
          c.value = s.value;
          break;
        }
    c.spelling = g.named ? g.constantName : std::to_string(c.value);
    c.confidence = confidenceOf(g);
    c.why = whyOf(g, kind);
    for (const auto &o : g.sites) {
      SourceSite site;
      site.file = facts.file;
      site.line = o.line;
      site.col = o.col;
      site.offset = o.offset;
      site.length = o.length;
      site.text = o.text;
      site.role = o.role;
      site.replacement = o.replacement;
      c.sites.push_back(std::move(site));
      index.byOccurrence[{o.offset, g.kernel}] = id;
    }
    index.kernelOf[id] = g.kernel;
    if (g.named)
      idOfConstant[{g.kernel, g.sites.front().constant}] = id;
    index.boundParam[id] = g.boundParam;
    values[id] = c.value;
    set.candidates.push_back(std::move(c));
  }

  // Implied constraints, in terms of candidate ids.
  auto reaching = kernelsReaching(facts);
  std::map<std::string, std::vector<std::string>> constraintsOf;
  auto resolverFor = [&](const std::string &kernelId) {
    return [&, kernelId](unsigned offset) -> std::optional<std::string> {
      auto it = index.byOccurrence.find({offset, kernelId});
      for (const auto &o : facts.occurrences) {
        if (o.offset != offset || o.kernel != kernelId)
          continue;
        if (it == index.byOccurrence.end())
          return std::to_string(o.value);
        const Candidate *c = set.find(it->second);
        std::string repl = "{P}";
        for (const auto &s : c->sites)
          if (s.offset == offset)
            repl = s.replacement;
        if (repl.rfind("static_cast<", 0) == 0) {
          repl = repl.substr(repl.find(">(") + 2);
          repl.pop_back();
        }
        std::string out;
        for (size_t i = 0; i < repl.size(); ++i) {
          if (repl.compare(i, 3, "{P}") == 0) {
            out += "{" + c->id + "}";
            i += 2;
          } else {
            out += repl[i];
          }
        }
        return "(" + out + ")";
      }
      return std::nullopt;
    };
  };
  auto add = [&](const std::string &text) {
    auto canon = canonical(text);
    if (!canon || canon->find('{') == std::string::npos ||
        !holdsAtDefaults(*canon, values))
      return;
    for (const auto &c : set.candidates)
      if (canon->find("{" + c.id + "}") != std::string::npos) {
        auto &list = constraintsOf[c.id];
        if (std::find(list.begin(), list.end(), *canon) == list.end())
          list.push_back(*canon);
      }
  };
  auto mentionsCandidate = [](const std::string &s) {
    return s.find('{') != std::string::npos;
  };
  for (const FunctionFacts *kernel : facts.kernels()) {
    auto resolve = resolverFor(kernel->id);
    bool warp = false;
    for (const auto &[fn, ks] : reaching)
      if (std::find(ks.begin(), ks.end(), kernel->id) != ks.end())
        if (const FunctionFacts *f = facts.function(fn))
          warp |= f->usesWarpLevelOps;
    // Block dims at each launch.
    for (const auto &call : facts.calls) {
      if (!call.isLaunch || call.callee != kernel->id || call.block.empty())
        continue;
      std::string product;
      bool ok = true;
      for (const auto &d : call.block) {
        auto r = resolveMarkers(d, resolve);
        if (!r) {
          ok = false;
          break;
        }
        product += (product.empty() ? "" : " * ") + ("(" + *r + ")");
      }
      if (!ok || !mentionsCandidate(product))
        continue;
      add(product + " <= 1024");
      if (warp)
        add("(" + product + ") % 32 == 0");
    }
    if (auto it = facts.launchBounds.find(kernel->id);
        it != facts.launchBounds.end())
      if (auto r = resolveMarkers(it->second, resolve);
          r && mentionsCandidate(*r)) {
        add("(" + *r + ") <= 1024");
        if (warp)
          add("(" + *r + ") % 32 == 0");
      }
    // Static shared memory of the kernel and the helpers it calls.
    std::string total;
    bool known = true;
    for (const auto &arr : facts.sharedArrays) {
      auto r = reaching.find(arr.function);
      if (r == reaching.end() || std::find(r->second.begin(), r->second.end(),
                                           kernel->id) == r->second.end())
        continue;
      if (arr.elementSize == 0 || arr.extents.empty()) {
        known = false;
        break;
      }
      std::string bytes = std::to_string(arr.elementSize);
      for (const auto &e : arr.extents) {
        auto v = resolveMarkers(e, resolve);
        if (!v) {
          known = false;
          break;
        }
        bytes += " * (" + *v + ")";
      }
      total += (total.empty() ? "" : " + ") + bytes;
    }
    if (known && !total.empty() && mentionsCandidate(total))
      add(total + " <= 49152");
  }
  // Constants defined from others: `kThreads == kGroups * kPerGroup`.
  for (const auto &g : groups) {
    for (const auto &o : g.sites) {
      if (o.derivedExpr.empty())
        continue;
      const std::string section = "\xC2\xA7";
      std::string text, id = ids[&g];
      const std::string &d = o.derivedExpr;
      for (size_t i = 0; i < d.size();) {
        if (d.compare(i, 2, section) != 0) {
          text += d[i++];
          continue;
        }
        size_t end = d.find(section, i + 2);
        std::string inner = d.substr(i + 2, end - i - 2);
        size_t eq = inner.rfind('=');
        std::string key = inner.substr(0, eq);
        auto it = idOfConstant.find({g.kernel, key});
        text += it != idOfConstant.end() ? "{" + it->second + "}"
                                         : inner.substr(eq + 1);
        i = end + 2;
      }
      add("{" + id + "} == " + text);
      break;
    }
  }
  for (auto &c : set.candidates) {
    if (c.kind == ParamKind::Unroll)
      add("{" + c.id + "} >= 1");
    if (c.kind == ParamKind::BlockSize &&
        std::any_of(c.sites.begin(), c.sites.end(), [](const SourceSite &s) {
          return s.role == "cub_block_size" || s.role == "launch_block";
        }))
      add("{" + c.id + "} <= 1024");
  }
  for (auto &c : set.candidates)
    c.impliedConstraints = constraintsOf[c.id];
  return set;
}

CandidateSet buildCandidates(const SourceFacts &facts) {
  CandidateIndex index;
  return buildCandidates(facts, index);
}

} // namespace ktune::refactor
