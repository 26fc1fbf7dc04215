//===- GroupInternal.h - The steps of buildCandidates -----------*- C++ -*-===//
//
// buildCandidates (Candidates.cpp) groups occurrences into candidates in
// steps, each separately callable:
//
//   Grouping.cpp           per kernel: drop dispatch arguments, sort the
//                          occurrences into families, merge the families
//                          into groups (padded extents, weak sites, launch
//                          template arguments, named constants)
//   CandidateRules.cpp     what a group is: its kind, its confidence, why
//   ImpliedConstraints.cpp the constraints the code implies, over ids
//
// Nothing here is part of ktune's public API.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_LIB_REFACTOR_GROUP_GROUPINTERNAL_H
#define KTUNE_LIB_REFACTOR_GROUP_GROUPINTERNAL_H

#include "ktune/Refactor/Detection.h"

#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ktune::refactor {

/// The sites that will become one candidate.
struct CandidateGroup {
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
  /// The constant's type (empty: int), from its first site in a strong
  /// role: the parameter replacing it has this type.
  std::string type;
  /// Every site is host code around a launch and no kernel template
  /// parameter is set: a launch parameter (the kernel stays as it is).
  bool launchParam = false;
  /// Qualified names of the host functions holding its sites.
  std::vector<std::string> hosts;
  /// A group of one case of a configuration table: the launch whose case
  /// it is (CallFacts::caseTable, caseIndex, caseCondition).
  const CallFacts *caseLaunch = nullptr;

  /// A site plays one of `roles` (a definition: through its use).
  bool hasRole(std::initializer_list<SiteRole> roles) const;
  Position firstOffset() const;
};

// --- what a group is (CandidateRules.cpp) ------------------------------------

/// A role that makes a literal a knob by itself (the launch's block dims,
/// __launch_bounds__, cub, an unroll count, an array extent).
bool isStrongRole(const Occurrence &o);

/// The block's share of the problem along one axis: the grid divides by it
/// and the kernel offsets its block by it (MAGMA's `blockIdx.y * BLK_Y`
/// beside `magma_ceildiv(n, BLK_Y)`), and it sizes no block.
bool isBlockTile(const CandidateGroup &g);
/// Evidence for a named constant: any role except plain uses.
bool isEvidenceRole(const Occurrence &o);
/// What an engineer's name says about a constant ("kThreadsPerBlock").
std::optional<ParamKind> kindFromName(const std::string &name);
/// A configuration type's argument (`SpmmConfig<float, 4, 32>` at a launch,
/// Family::typeName "SpmmConfig::kBlockItemsY_"): the kind its class's
/// parameter is named for; nothing for other sites and other names.
std::optional<ParamKind> configArgKind(const Occurrence &o);
ParamKind inferKind(const CandidateGroup &g);
/// "launch block dim x", "loop stride", ... ("other use" for none).
std::string roleDescription(std::optional<SiteRole> role, int dim);
/// The candidate's `why`: its spelling, roles and lines, and what to check.
/// Lines in headers are named with the header's file name when `facts` is
/// given ("at act.cuh:12").
std::string whyOf(const CandidateGroup &g, ParamKind kind,
                  const SourceFacts *facts = nullptr);
Confidence confidenceOf(const CandidateGroup &g);
/// The type a parameter replacing the group's sites has: the type of its
/// first site in a strong role (else of its first site). Empty: int.
std::string groupType(const CandidateGroup &g);
/// Replacements outside constant contexts keep the site's own type with a
/// static_cast when it differs from the parameter's (`groupType`):
/// "static_cast<unsigned int>({P})" for `i += 256u` in an int group.
void finishReplacement(Occurrence &o, const std::string &paramType);

// --- grouping one kernel (Grouping.cpp) --------------------------------------

/// One kernel's occurrences sorted into families, before they are merged.
struct KernelGroups {
  std::map<std::string, CandidateGroup> named;  // by constant
  std::map<int64_t, CandidateGroup> block;      // block family, by value
  std::map<int64_t, CandidateGroup> ipt;        // items per thread, by value
  std::map<int64_t, CandidateGroup> vecbytes;   // vector bytes, by value
  std::map<std::string, CandidateGroup> single; // one group per family key
  std::map<std::string, std::map<int64_t, CandidateGroup>> targs; // by param
  std::vector<Occurrence> weak; // block-family literals in no strong role
  std::map<int64_t, std::vector<unsigned>> unlinked; // value -> lines
};

/// Kernel template parameters that launches spell differently
/// (dequant<QK8_0> and dequant<QK4_0>): a dispatch, never a knob.
std::set<int> dispatchParams(const SourceFacts &facts,
                             const FunctionFacts &kernel);
/// The kernel's occurrences without dispatch arguments and the constants
/// passed to them.
std::vector<Occurrence> kernelOccurrences(const SourceFacts &facts,
                                          const FunctionFacts &kernel,
                                          const std::set<int> &dispatch);
/// `norm<1024><<<g, dim3(1024)>>>` beside `norm<32><<<g, 32>>>`: where a
/// dispatch parameter's literal at a launch is that launch's block literal,
/// the two are one block size of that launch. The block sites they take
/// leave `occs`.
std::vector<CandidateGroup>
launchTiedTemplateArgs(const SourceFacts &facts, const FunctionFacts &kernel,
                       const std::set<int> &dispatch,
                       std::vector<Occurrence> &occs);
KernelGroups sortIntoFamilies(const std::vector<Occurrence> &occs,
                              const std::string &kernelId);
/// tile[32][33]: the 33 is the 32 tile padded by one.
void mergePaddedExtents(KernelGroups &g);
/// Weak literal sites join a group of their value; in grid arithmetic a
/// value one below a group is that group minus one ((n + 255) / 256).
void joinWeakSites(KernelGroups &g);
/// Launch template arguments: consistent across launches, else dropped.
void foldTemplateArgs(KernelGroups &g);
/// Named constants with role evidence or a telling name.
std::vector<CandidateGroup> qualifiedNamedGroups(const KernelGroups &g);
/// A named block/tile constant absorbs literal block groups of its value.
void absorbLiteralBlocks(std::vector<CandidateGroup> &named, KernelGroups &g);
/// Two named block sizes of equal value, one only on the host launch and
/// one only in the kernel, are the same knob.
void mergeHostAndKernelConstants(std::vector<CandidateGroup> &named,
                                 const std::string &kernelId);
/// Groups whose sites are all in host functions and that set no kernel
/// template parameter become launch parameters; such a group without a
/// launch role (a host-side `16 / sizeof(T)` alone) is no knob and dropped.
void markLaunchParams(const SourceFacts &facts,
                      std::vector<CandidateGroup> &groups);
/// Every group of one kernel from the facts as given, in the order
/// candidates are made.
std::vector<CandidateGroup> groupKernelSites(const SourceFacts &facts,
                                             const FunctionFacts &kernel);

// --- configuration tables (CaseGroups.cpp) -----------------------------------
/// Every group of one kernel. A kernel launched from several cases of a
/// configuration table is grouped case by case (each case's constants are
/// that case's parameters, even where another case spells the same value
/// or other values for the same template parameter), then what no single
/// case holds; groupKernelSites does each part.
std::vector<CandidateGroup> groupKernel(const SourceFacts &facts,
                                        const FunctionFacts &kernel);

// --- implied constraints (ImpliedConstraints.cpp) ----------------------------

/// Canonical text of a constraint over "{id}" placeholders.
std::optional<std::string> canonicalConstraint(const std::string &text);
/// True when the constraint holds at the candidates' values.
bool holdsAtDefaults(const std::string &text,
                     const std::map<std::string, int64_t> &values);

/// What the constraints are written from: the candidates made so far, and
/// which group and named constant each id came from.
struct ConstraintInputs {
  const SourceFacts &facts;
  const std::vector<CandidateGroup> &groups;
  const std::map<const CandidateGroup *, std::string> &ids;
  /// (kernel id, constant key) -> candidate id.
  const std::map<std::pair<std::string, std::string>, std::string>
      &idOfConstant;
  const std::map<std::string, int64_t> &values; // candidate id -> value
  const CandidateIndex &index;
};
/// Fills each candidate's impliedConstraints: block dims and
/// __launch_bounds__ <= 1024 (and % 32 for warp-level code), static shared
/// memory <= 48 KiB, derived constants, unroll >= 1.
void addImpliedConstraints(const ConstraintInputs &in, CandidateSet &set);

} // namespace ktune::refactor

#endif
