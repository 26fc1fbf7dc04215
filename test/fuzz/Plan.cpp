//===- Plan.cpp - Fuzzes reading and validating a plan --------------------===//
//
// The input is a plan file, read and validated against a real candidate set
// (test/planner/Inputs/rms_scale.*), as ktune-refactor --plan does.
//
//===----------------------------------------------------------------------===//
#include "ktune/Plan/Plan.h"
#include "FuzzEmbedded.inc"
#include "FuzzSupport.h"
#include "ktune/Plan/Candidates.h"

#include <cstdlib>

using namespace ktune;

namespace {
const CandidateSet &candidates() {
  static const CandidateSet Set = [] {
    auto j = parseJson(Embedded_candidates, "candidates");
    auto set = j ? candidatesFromJson(*j) : Expected<CandidateSet>();
    if (!j || !set)
      std::abort(); // the embedded candidates must read
    return *set;
  }();
  return Set;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto j = fuzz::json(data, size);
  if (!j)
    return 0;
  auto plan = planFromJson(*j);
  if (!plan)
    return 0;
  SourceTexts sources{{"rms_scale.cu", Embedded_source}};
  auto errors = validatePlan(*plan, candidates(), sources);
  fuzz::use(formatPlanErrors(errors));
  fuzz::use(planToJson(*plan).dump());
  return 0;
}
