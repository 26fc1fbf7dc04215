//===- CaseGroups.cpp - One kernel's groups, case by case -----------------===//
//
// `if (seqlen <= 128) k<32, 4><<<g, 32>>>(); else k<64, 16><<<g, 64>>>();`
// is a configuration table: each case's constants are knobs of that case.
// Grouped together, the two 4s of two cases would be one parameter, and the
// 4 and 16 a dispatch (different values for one template parameter) that is
// never lifted. So the sites that only one case's launches read are grouped
// apart, case by case, and the rest (the kernel's own code, constants that
// several cases read) as before.
//
//===----------------------------------------------------------------------===//

#include "GroupInternal.h"

#include <algorithm>
#include <optional>
#include <set>
#include <tuple>

namespace ktune::refactor {

namespace {

using CaseKey = std::pair<unsigned, int>; // table position, case index
using CaseOfLaunch = std::map<Position, CaseKey>;

CaseOfLaunch
caseOfLaunch(const std::map<CaseKey, std::vector<const CallFacts *>> &byCase) {
  CaseOfLaunch out;
  for (const auto &[key, calls] : byCase)
    for (const CallFacts *call : calls)
      out[call->offset] = key;
  return out;
}

/// The one case whose launches alone read an occurrence.
std::optional<CaseKey> onlyCase(const Occurrence &o,
                                const CaseOfLaunch &cases) {
  std::optional<CaseKey> only;
  for (Position launch : o.launches) {
    auto it = cases.find(launch);
    if (it == cases.end() || (only && *only != it->second))
      return std::nullopt;
    only = it->second;
  }
  return only;
}

bool sizesWork(const FunctionFacts &kernel, int param) {
  return param >= 0 && size_t(param) < kernel.templateParams.size() &&
         kernel.templateParams[param].sizesWork;
}

/// The kernel's launches in cases of tables from which it is launched in
/// two cases or more, by case.
std::map<CaseKey, std::vector<const CallFacts *>>
tableCases(const SourceFacts &facts, const FunctionFacts &kernel) {
  std::map<CaseKey, std::vector<const CallFacts *>> byCase;
  // Overloads are other kernels here: the arguments chose them, not a case.
  for (const CallFacts &call : facts.calls)
    if (call.isLaunch && call.callee == kernel.id && call.caseTable)
      byCase[{unsigned(*call.caseTable), call.caseIndex}].push_back(&call);
  // What each case spells for the kernel: the role, dimension, template
  // parameter and value of every constant only its launches read that could
  // be a knob.
  CaseOfLaunch cases = caseOfLaunch(byCase);
  using Spelled = std::tuple<SiteRole, int, int, int64_t>;
  std::map<CaseKey, std::multiset<Spelled>> spelled;
  for (const Occurrence &o : facts.occurrences) {
    // An argument for a parameter that sizes no work is the case's data.
    if (o.kernel != kernel.id ||
        (o.role == SiteRole::TemplateArg && !configArgKind(o) &&
         !sizesWork(kernel, o.boundParam)))
      continue;
    if (auto key = onlyCase(o, cases))
      spelled[*key].insert({o.role, o.dim, o.boundParam, o.value});
  }
  // A table of two cases or more that spell different constants; cases
  // spelling the same ones (`if (big) k<true><<<g, 64>>>(); else
  // k<false><<<g, 64>>>()`) are a dispatch whose constants are shared.
  std::map<unsigned, std::set<std::multiset<Spelled>>> kinds;
  std::map<unsigned, int> count;
  for (const auto &[key, calls] : byCase) {
    kinds[key.first].insert(spelled[key]);
    ++count[key.first];
  }
  std::erase_if(byCase, [&](const auto &kv) {
    return count[kv.first.first] < 2 || kinds[kv.first.first].size() < 2;
  });
  return byCase;
}

/// The facts with only the kernel's launches in `launches` and the
/// occurrences those launches alone read (`keep`).
SourceFacts partOf(const SourceFacts &facts, const FunctionFacts &kernel,
                   const std::set<Position> &launches,
                   const std::function<bool(const Occurrence &)> &keep) {
  SourceFacts part;
  part.file = facts.file;
  part.functions = facts.functions;
  for (const CallFacts &call : facts.calls) {
    const FunctionFacts *callee = facts.function(call.callee);
    bool ofKernel = callee && callee->qualifiedName == kernel.qualifiedName;
    if (!ofKernel || launches.count(call.offset))
      part.calls.push_back(call);
  }
  for (const Occurrence &o : facts.occurrences)
    if (o.kernel != kernel.id || keep(o))
      part.occurrences.push_back(o);
  return part;
}

/// A group of template arguments alone (no geometry of the launch) is a
/// case's knob when the kernel's parameter sizes work and the case is not
/// chosen by that value (its condition names no such number, takes no
/// remainder and tests nothing the launch's geometry reads): `if (n % 8 ==
/// 0) k<8>` and `case 7: k<7>` pass what the data needs, `if (seqlen <=
/// 128) k<32, 4>` what was tuned.
bool caseKnob(const CandidateGroup &g, const FunctionFacts &kernel,
              const CallFacts &launch) {
  bool argumentsOnly =
      std::all_of(g.sites.begin(), g.sites.end(), [](const Occurrence &o) {
        return o.role == SiteRole::TemplateArg;
      });
  // A configuration type's knob (SpmmConfig's kBlockItemsY_) is named so.
  if (!argumentsOnly ||
      std::any_of(g.sites.begin(), g.sites.end(), [](const Occurrence &o) {
        return configArgKind(o).has_value();
      }))
    return true;
  if (!sizesWork(kernel, g.boundParam))
    return false;
  // The launch's geometry reads what the condition tests (`if (block_size
  // == 16) k<16><<<g, dim3(block_size)>>>`): the argument must agree with it.
  for (const std::string &name : launch.hostNames)
    if (launch.caseCondition.find("(" + name + ")") != std::string::npos)
      return false;
  return !launch.caseRemainder && !launch.caseNumbers.count(g.value);
}

} // namespace

std::vector<CandidateGroup> groupKernel(const SourceFacts &facts,
                                        const FunctionFacts &kernel) {
  auto cases = tableCases(facts, kernel);
  if (cases.empty())
    return groupKernelSites(facts, kernel);

  CaseOfLaunch ofLaunch = caseOfLaunch(cases);
  auto caseOf = [&](const Occurrence &o) { return onlyCase(o, ofLaunch); };

  std::vector<CandidateGroup> out;
  std::set<Position> inCases;
  for (const auto &[key, calls] : cases) {
    std::set<Position> launches;
    for (const CallFacts *call : calls)
      launches.insert(call->offset);
    inCases.insert(launches.begin(), launches.end());
    SourceFacts part =
        partOf(facts, kernel, launches,
               [&](const Occurrence &o) { return caseOf(o) == key; });
    for (auto &g : groupKernelSites(part, kernel)) {
      if (!caseKnob(g, kernel, *calls.front()))
        continue;
      g.caseLaunch = calls.front();
      out.push_back(std::move(g));
    }
  }
  std::set<Position> others;
  for (const CallFacts &call : facts.calls)
    if (call.isLaunch && !inCases.count(call.offset))
      others.insert(call.offset);
  SourceFacts rest = partOf(facts, kernel, others,
                            [&](const Occurrence &o) { return !caseOf(o); });
  for (auto &g : groupKernelSites(rest, kernel))
    out.push_back(std::move(g));
  return out;
}

} // namespace ktune::refactor
