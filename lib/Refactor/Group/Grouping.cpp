//===- Grouping.cpp - One kernel's occurrences into groups ----------------===//
//
// Named constants (macros, constants, enumerators) group by name; literals
// group by family and value: the 256 of a launch's block dims, of
// __launch_bounds__ and of cub::BlockReduce<float, 256> is one group, and a
// loop stride or grid divisor of that value joins it. Literals in no such
// role are never sites.
//
//===----------------------------------------------------------------------===//

#include "GroupInternal.h"

#include <algorithm>
#include <cctype>

namespace ktune::refactor {

std::set<int> dispatchParams(const SourceFacts &facts,
                             const FunctionFacts &kernel) {
  // Template parameters that launches spell differently (dequant<QK8_0>
  // and dequant<QK4_0>, concat<0> and concat<2>) are a dispatch even when
  // the values are equal or some are not constants we track: none of
  // their arguments is a knob, nor any constant passed to them.
  std::set<int> out;
  std::map<size_t, std::set<std::string>> spellings;
  for (const CallFacts &call : facts.calls) {
    // Overloads count as one kernel: the arguments pick the overload.
    const FunctionFacts *callee = facts.function(call.callee);
    // A launcher's own launch spells its parameters: each call of the
    // launcher says what it passes (its LauncherCall).
    if (!call.isLaunch || call.setByCallers || !callee ||
        callee->qualifiedName != kernel.qualifiedName)
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
      out.insert(static_cast<int>(i));
  return out;
}

std::vector<Occurrence> kernelOccurrences(const SourceFacts &facts,
                                          const FunctionFacts &kernel,
                                          const std::set<int> &dispatch) {
  std::set<std::string> dispatchConstants;
  for (const auto &o : facts.occurrences)
    if (o.kernel == kernel.id && o.role == SiteRole::TemplateArg &&
        dispatch.count(o.boundParam) && !o.constant.empty())
      dispatchConstants.insert(o.constant);
  // A template parameter's default that no launch leaves to it sets
  // nothing: no site (it was lifted as a knob that changed nothing).
  size_t passedByAll = SIZE_MAX;
  for (const CallFacts &call : facts.calls)
    if (call.callee == kernel.id && call.namesKernel())
      passedByAll = std::min(passedByAll, call.explicitArgs.size());
  std::vector<Occurrence> occs;
  for (const auto &o : facts.occurrences) {
    if (o.kernel != kernel.id)
      continue;
    if (o.role == SiteRole::TemplateDefault && passedByAll != SIZE_MAX &&
        o.boundParam >= 0 && size_t(o.boundParam) < passedByAll)
      continue;
    if (o.role == SiteRole::TemplateArg && dispatch.count(o.boundParam))
      continue;
    if (!o.constant.empty() && dispatchConstants.count(o.constant))
      continue;
    if (!o.constant.empty() && kernel.keptConstants.count(o.constant))
      continue;
    // A kernel that keeps its code and sizes a block collective for the
    // most threads a block has (cub::BlockReduce<float, 1024>) takes any
    // block: the host's block is then the launch's own knob.
    if (!kernel.cannotTemplate.empty() && o.function == kernel.id &&
        o.role == SiteRole::CubBlockSize && o.value == 1024)
      continue;
    occs.push_back(o);
  }
  return occs;
}

std::vector<CandidateGroup>
launchTiedTemplateArgs(const SourceFacts &facts, const FunctionFacts &kernel,
                       const std::set<int> &dispatch,
                       std::vector<Occurrence> &occs) {
  auto literal = [](const Occurrence &o) {
    return o.spelling == Spelling::Literal && o.constant.empty() && o.top &&
           !o.launches.empty();
  };
  // The literal template arguments of each (parameter, value), and the
  // launches that pass them.
  std::map<std::pair<int, int64_t>, std::vector<Occurrence>> args;
  for (const auto &o : facts.occurrences)
    if (o.kernel == kernel.id && o.role == SiteRole::TemplateArg &&
        dispatch.count(o.boundParam) && literal(o) && o.launches.size() == 1)
      args[{o.boundParam, o.value}].push_back(o);
  std::vector<CandidateGroup> out;
  std::set<Position> taken; // block sites
  for (const auto &[key, targs] : args) {
    std::set<Position> passing;
    for (const auto &t : targs)
      passing.insert(t.launches.front());
    CandidateGroup g;
    std::set<Position> launches;
    for (const auto &o : occs) {
      if (o.role != SiteRole::LaunchBlock || o.dim != 0 || !literal(o) ||
          o.value != key.second || taken.count(o.offset))
        continue;
      // Every launch it sizes passes the same value.
      if (!std::all_of(o.launches.begin(), o.launches.end(),
                       [&](Position l) { return passing.count(l) > 0; }))
        continue;
      g.sites.push_back(o);
      launches.insert(o.launches.begin(), o.launches.end());
    }
    if (g.sites.empty())
      continue;
    for (const auto &s : g.sites)
      taken.insert(s.offset);
    for (const auto &t : targs)
      if (launches.count(t.launches.front()))
        g.sites.push_back(t);
    g.kernel = kernel.id;
    g.value = key.second;
    g.boundParam = key.first;
    out.push_back(std::move(g));
  }
  occs.erase(std::remove_if(occs.begin(), occs.end(),
                            [&](const Occurrence &o) {
                              return o.role == SiteRole::LaunchBlock &&
                                     taken.count(o.offset);
                            }),
             occs.end());
  return out;
}

KernelGroups sortIntoFamilies(const std::vector<Occurrence> &occs,
                              const std::string &kernelId) {
  KernelGroups k;
  for (const auto &o : occs) {
    if (o.family.kind == Family::Kind::Unlinked) {
      k.unlinked[o.value].push_back(o.line);
      continue;
    }
    if (!o.constant.empty()) {
      CandidateGroup &g = k.named[o.constant];
      g.kernel = kernelId;
      g.named = true;
      g.constantName = o.constantName;
      g.value = o.baseValue;
      if (o.boundParam >= 0)
        g.boundParam = o.boundParam;
      g.sites.push_back(o);
      continue;
    }
    const Family &fam = o.family;
    if (fam.kind == Family::Kind::Block) {
      if (isStrongRole(o)) {
        CandidateGroup &g = k.block[o.value];
        g.kernel = kernelId;
        g.value = o.value;
        g.sites.push_back(o);
      } else {
        k.weak.push_back(o);
      }
    } else if (fam.kind == Family::Kind::ItemsPerThread ||
               fam.kind == Family::Kind::VectorBytes) {
      CandidateGroup &g =
          (fam.kind == Family::Kind::ItemsPerThread ? k.ipt
                                                    : k.vecbytes)[o.value];
      g.kernel = kernelId;
      g.value = o.value;
      g.sites.push_back(o);
    } else if (fam.kind == Family::Kind::TemplateArg) {
      // A configuration type's argument for a parameter named like no knob.
      if (!fam.typeName.empty() && !configArgKind(o))
        continue;
      // Each launch's configuration is its own: launches passing two
      // configurations are no dispatch.
      std::string key = fam.str();
      if (!fam.typeName.empty() && !o.launches.empty())
        key += "@" + std::to_string(o.launches.front());
      CandidateGroup &g = k.targs[key][o.value];
      g.kernel = kernelId;
      g.value = o.value;
      g.boundParam = o.boundParam;
      g.sites.push_back(o);
    } else if (fam.isSingle()) {
      CandidateGroup &g = k.single[fam.str()];
      g.kernel = kernelId;
      g.value = o.value;
      g.informational = fam.kind == Family::Kind::VectorType;
      g.sites.push_back(o);
    }
  }
  // A constant that is only part of a template argument (`k<N / NA>`) is
  // not the kernel's parameter: where the kernel reads it too, its reads
  // are the constant's, not that parameter's.
  for (auto &[key, g] : k.named) {
    if (g.boundParam < 0)
      continue;
    bool whole =
        std::any_of(g.sites.begin(), g.sites.end(), [](const Occurrence &o) {
          return o.boundParam >= 0 && o.top;
        });
    bool readInKernel =
        std::any_of(g.sites.begin(), g.sites.end(), [&](const Occurrence &o) {
          return o.function == kernelId;
        });
    if (!whole && readInKernel) {
      g.boundParam = -1;
      for (Occurrence &o : g.sites)
        o.boundParam = -1;
    }
  }
  return k;
}

void mergePaddedExtents(KernelGroups &k) {
  for (auto it = k.block.begin(); it != k.block.end();) {
    auto below = k.block.find(it->first - 1);
    bool onlyExtents = std::all_of(
        it->second.sites.begin(), it->second.sites.end(),
        [](const Occurrence &o) { return o.role == SiteRole::SharedExtent; });
    if (below != k.block.end() && onlyExtents &&
        below->second.hasRole({SiteRole::SharedExtent})) {
      for (auto s : it->second.sites) {
        s.replacement = "{P} + 1";
        s.baseValue = s.value - 1;
        below->second.sites.push_back(s);
      }
      it = k.block.erase(it);
    } else {
      ++it;
    }
  }
}

void joinWeakSites(KernelGroups &k) {
  for (auto o : k.weak) {
    if (auto it = k.block.find(o.value); it != k.block.end()) {
      it->second.sites.push_back(o);
    } else if (auto ip = k.ipt.find(o.value);
               ip != k.ipt.end() && o.role == SiteRole::IndexArith) {
      // blockIdx.x * 128 * 4: a block's share of items.
      ip->second.sites.push_back(o);
    } else if (o.role == SiteRole::LaunchGrid) {
      if (auto up = k.block.find(o.value + 1); up != k.block.end()) {
        o.replacement = "{P} - 1";
        o.baseValue = o.value + 1;
        up->second.sites.push_back(o);
      }
    }
  }
}

/// `block` holds a launch block dimension of a launch that also reads a
/// site of `g`.
static bool blocksTheSameLaunch(const CandidateGroup &block,
                                const CandidateGroup &g) {
  for (const Occurrence &b : block.sites)
    if (b.role == SiteRole::LaunchBlock)
      for (const Occurrence &s : g.sites)
        for (Position at : s.launches)
          if (std::find(b.launches.begin(), b.launches.end(), at) !=
              b.launches.end())
            return true;
  return false;
}

void foldTemplateArgs(KernelGroups &k) {
  for (auto &[fam, byValue] : k.targs) {
    if (byValue.size() != 1)
      continue; // different launches pass different values: a dispatch
    CandidateGroup g = byValue.begin()->second;
    // A factor of the argument (`2 * MAX_K`) equals no kernel constant.
    auto it = g.boundParam >= 0 ? k.block.find(g.value) : k.block.end();
    // A configuration type's argument that a launch's block spells too
    // (`k<Cfg<8, 32>><<<g, dim3(32, 8)>>>`) is that launch's block.
    if (configArgKind(g.sites.front()))
      if (auto b = k.block.find(g.value);
          b != k.block.end() && blocksTheSameLaunch(b->second, g))
        it = b;
    if (it != k.block.end()) {
      for (auto &s : g.sites)
        it->second.sites.push_back(s);
      if (g.boundParam >= 0)
        it->second.boundParam = g.boundParam;
    } else {
      k.single[fam] = g;
    }
  }
}

std::vector<CandidateGroup> qualifiedNamedGroups(const KernelGroups &k) {
  std::vector<CandidateGroup> out;
  for (auto &[key, g] : k.named) {
    // A grid-stride kernel's grid is evidence whatever its name (`GS`).
    bool evidence =
        std::any_of(g.sites.begin(), g.sites.end(), isEvidenceRole) ||
        inferKind(g) == ParamKind::GridSize || isBlockTile(g);
    // Enumerators name cases (PACK_SCALED, LAYOUT_B) more often than
    // sizes: their name alone is no evidence.
    bool enumerator = g.sites.front().spelling == Spelling::Enumerator;
    if (!evidence && (enumerator || !kindFromName(g.constantName)))
      continue;
    out.push_back(g);
  }
  return out;
}

void absorbLiteralBlocks(std::vector<CandidateGroup> &named, KernelGroups &k) {
  // The kernel's kBlock in cub, the host's literal 256 at the launch.
  for (auto &g : named) {
    ParamKind kind = inferKind(g);
    if (kind != ParamKind::BlockSize && kind != ParamKind::TileSize)
      continue;
    if (auto it = k.block.find(g.value); it != k.block.end()) {
      for (auto &s : it->second.sites)
        g.sites.push_back(s);
      if (it->second.boundParam >= 0)
        g.boundParam = it->second.boundParam;
      k.block.erase(it);
    }
    // `int threads = 256; k<T, 256><<<g, threads>>>`: the template argument
    // the launches pass (folded alone, no literal block to join) is the
    // launch's block, as it is when the block is spelled 256 too.
    if (kind != ParamKind::BlockSize || g.boundParam >= 0 ||
        !std::any_of(g.sites.begin(), g.sites.end(), [](const Occurrence &o) {
          return o.role == SiteRole::LaunchBlock ||
                 o.useRole == SiteRole::LaunchBlock;
        }))
      continue;
    for (auto it = k.single.begin(); it != k.single.end(); ++it) {
      CandidateGroup &t = it->second;
      if (t.value != g.value || t.boundParam < 0 ||
          !std::all_of(t.sites.begin(), t.sites.end(), [](const Occurrence &o) {
            return o.role == SiteRole::TemplateArg;
          }))
        continue;
      for (auto &s : t.sites)
        g.sites.push_back(s);
      g.boundParam = t.boundParam;
      k.single.erase(it);
      break;
    }
  }
}

void mergeHostAndKernelConstants(std::vector<CandidateGroup> &named,
                                 const std::string &kernelId) {
  auto hostOnly = [&](const CandidateGroup &g) {
    return std::all_of(
        g.sites.begin(), g.sites.end(),
        [&](const Occurrence &o) { return o.function != kernelId; });
  };
  auto kernelOnly = [&](const CandidateGroup &g) {
    return std::all_of(
        g.sites.begin(), g.sites.end(),
        [&](const Occurrence &o) { return o.function == kernelId; });
  };
  for (size_t i = 0; i < named.size(); ++i) {
    for (size_t j = i + 1; j < named.size(); ++j) {
      CandidateGroup &a = named[i], &b = named[j];
      if (a.sites.empty() || b.sites.empty() || a.value != b.value ||
          inferKind(a) != ParamKind::BlockSize ||
          inferKind(b) != ParamKind::BlockSize)
        continue;
      if ((hostOnly(a) && kernelOnly(b)) || (hostOnly(b) && kernelOnly(a))) {
        CandidateGroup &keep = kernelOnly(a) ? a : b;
        CandidateGroup &drop = kernelOnly(a) ? b : a;
        for (auto &s : drop.sites)
          keep.sites.push_back(s);
        drop.sites.clear();
      }
    }
  }
}

/// A block literal whose launch also passes its value as a template
/// argument the tool leaves, for a parameter that sizes the kernel's work
/// (`dups<128><<<g, 128>>>` with `BlockReduce<int, TB>` and `sum == TB`):
/// the argument stays, so the block must stay with it.
static bool passedAsKeptArgument(const SourceFacts &facts,
                                 const CandidateGroup &g) {
  for (const Occurrence &o : g.sites) {
    if (o.role != SiteRole::LaunchBlock)
      continue;
    std::string value = std::to_string(o.value);
    for (const CallFacts &call : facts.calls) {
      const FunctionFacts *kernel = facts.function(call.callee);
      if (!kernel ||
          !std::count(o.launches.begin(), o.launches.end(), call.offset))
        continue;
      for (size_t i = 0;
           i < call.explicitArgs.size() && i < kernel->templateParams.size();
           ++i) {
        // A launcher's call passing this very constant as both (its
        // launcher sizes the block with the parameter it passes on).
        if (i < call.explicitArgAt.size() && call.explicitArgAt[i] == o.offset)
          continue;
        if (call.explicitArgs[i] == value &&
            kernel->templateParams[i].sizesWork)
          return true;
      }
    }
  }
  return false;
}

void markLaunchParams(const SourceFacts &facts,
                      std::vector<CandidateGroup> &groups) {
  std::vector<CandidateGroup> kept;
  for (auto &g : groups) {
    bool host = g.boundParam < 0 && !g.informational && !g.sites.empty();
    std::vector<std::string> hosts;
    for (const auto &s : g.sites) {
      const FunctionFacts *f = facts.function(s.function);
      if (!f || f->role != FunctionRole::Host) {
        host = false;
        break;
      }
      if (std::find(hosts.begin(), hosts.end(), f->qualifiedName) ==
          hosts.end())
        hosts.push_back(f->qualifiedName);
    }
    if (host) {
      // A configuration type's argument reaches the kernel through its type.
      bool configures =
          std::any_of(g.sites.begin(), g.sites.end(), [](const Occurrence &o) {
            return configArgKind(o).has_value();
          });
      if ((!configures &&
           !g.hasRole({SiteRole::LaunchBlock, SiteRole::LaunchGrid,
                       SiteRole::LaunchSmem})) ||
          passedAsKeptArgument(facts, g))
        continue;
      g.launchParam = true;
      g.hosts = std::move(hosts);
    }
    kept.push_back(std::move(g));
  }
  groups = std::move(kept);
}

std::vector<CandidateGroup> groupKernelSites(const SourceFacts &facts,
                                             const FunctionFacts &kernel) {
  std::set<int> dispatch = dispatchParams(facts, kernel);
  std::vector<Occurrence> occs = kernelOccurrences(facts, kernel, dispatch);
  std::vector<CandidateGroup> tied =
      launchTiedTemplateArgs(facts, kernel, dispatch, occs);
  KernelGroups k = sortIntoFamilies(occs, kernel.id);
  mergePaddedExtents(k);
  joinWeakSites(k);
  foldTemplateArgs(k);
  std::vector<CandidateGroup> named = qualifiedNamedGroups(k);
  absorbLiteralBlocks(named, k);
  mergeHostAndKernelConstants(named, kernel.id);

  std::vector<CandidateGroup> groups;
  for (auto &g : named)
    if (!g.sites.empty())
      groups.push_back(std::move(g));
  for (auto &[v, g] : k.block) {
    if (auto it = k.unlinked.find(v); it != k.unlinked.end())
      g.unlinkedLines = it->second;
    groups.push_back(std::move(g));
  }
  for (auto &[v, g] : k.ipt)
    if (g.hasRole({SiteRole::CubItemsPerThread, SiteRole::RegisterArray}))
      groups.push_back(std::move(g));
  for (auto &[v, g] : k.vecbytes)
    if (g.hasRole({SiteRole::VectorBytes}))
      groups.push_back(std::move(g));
  for (auto &[f, g] : k.single)
    groups.push_back(std::move(g));
  for (auto &g : tied)
    groups.push_back(std::move(g));
  markLaunchParams(facts, groups);
  return groups;
}

} // namespace ktune::refactor
