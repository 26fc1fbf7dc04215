//===- PlanRules.h - Rules shared by the validator and planner -*- C++ -*-===//
//
// The heuristic planner must only write plans that validatePlan accepts, so
// both read the same rules from here.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_LIB_PLAN_PLANRULES_H
#define KTUNE_LIB_PLAN_PLANRULES_H

#include "ktune/Plan/Candidates.h"
#include "ktune/Plan/Plan.h"

#include <cstdint>
#include <optional>
#include <string>

namespace ktune::plan_rules {

/// The values a parameter of a kind may take.
struct KindRange {
  int64_t min, max;
  bool pow2;
  const char *reason; // why, for error messages
};

KindRange kindRange(ParamKind kind);
bool allowedValue(ParamKind kind, int64_t value);

/// "file:line:col" of a site.
std::string location(const SourceSite &site);

/// Why `site` does not match `sources` (missing file, text changed, position
/// off), or nullopt when it matches.
std::optional<std::string> siteMismatch(const SourceSite &site,
                                        const SourceTexts &sources);

/// Two edits conflict when their byte ranges overlap; an insertion (length
/// 0) conflicts with an edit at or around its offset.
bool editsOverlap(const SourceSite &a, const SourceSite &b);
/// The same place of the source, inserting the same text around the
/// replacement (a shadowing declaration names its constant).
bool samePlace(const SourceSite &a, const SourceSite &b);

/// Longest constraint text accepted.
inline constexpr size_t MaxConstraintLength = 2000;

} // namespace ktune::plan_rules

#endif
