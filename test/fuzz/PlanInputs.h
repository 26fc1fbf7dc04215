//===- PlanInputs.h - The candidates the plan harnesses validate against -*- C++
//-*-===//
#ifndef KTUNE_TEST_FUZZ_PLANINPUTS_H
#define KTUNE_TEST_FUZZ_PLANINPUTS_H

#include "FuzzEmbedded.inc"
#include "FuzzSupport.h"
#include "ktune/Plan/Candidates.h"
#include "ktune/Plan/Plan.h"

#include <string>

namespace ktune::fuzz {

/// test/planner/Inputs/rms_scale.candidates.json, read once.
inline const CandidateSet &embeddedCandidates() {
  static const CandidateSet Set =
      readEmbedded(Embedded_candidates, "candidates", candidatesFromJson);
  return Set;
}

/// The plan's errors against the embedded candidates and their source
/// (test/planner/Inputs/rms_scale.cu), as ktune-refactor --plan lists them.
inline std::string embeddedPlanErrors(const Plan &plan) {
  SourceTexts sources{{"rms_scale.cu", Embedded_source}};
  return formatPlanErrors(validatePlan(plan, embeddedCandidates(), sources));
}

} // namespace ktune::fuzz

#endif
