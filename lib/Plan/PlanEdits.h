//===- PlanEdits.h - The source edits a plan asks for -----------*- C++ -*-===//
//
// Private to lib/Plan: PlanValidation.cpp collects the edits of a plan's
// parameters; PlanEdits.cpp checks them together.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_LIB_PLAN_PLANEDITS_H
#define KTUNE_LIB_PLAN_PLANEDITS_H

#include "ktune/Plan/Candidates.h"
#include "ktune/Support/Error.h"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::plan_edits {

/// Plan text quoted in a message: printable, and short even when an
/// attacker made it long.
std::string quote(std::string_view text);

/// One source edit the plan asks for, for the overlap check.
struct Edit {
  const SourceSite *site;
  std::string where;     // JSON path of what asked for it
  std::string paramPath; // JSON path of the parameter
  std::string kernel, paramName;
};

/// Two edits that overlap are an error at the later one (one piece of
/// source can be rewritten only once), unless it is the same edit made for
/// one parameter; sorts `edits` by position.
void checkOverlaps(std::vector<Edit> &edits, std::vector<Error> &errors);

/// A shared site lifted for one kernel is lifted for every kernel whose
/// candidate holds it: its one edit names the parameter in each launcher.
/// `candidateOwner`: the candidates lifted, by id.
void checkSharedSites(const std::vector<Edit> &edits,
                      const CandidateSet &candidates,
                      const std::map<std::string, std::string> &candidateOwner,
                      std::vector<Error> &errors);

} // namespace ktune::plan_edits

#endif
