//===- Reply.cpp - Fuzzes a planner's reply -------------------------------===//
//
// The input is what an LLM answered: the plan is looked for in it, read and
// validated, as ktune-plan --planner does.
//
//===----------------------------------------------------------------------===//
#include "FuzzEmbedded.inc"
#include "FuzzSupport.h"
#include "ktune/Plan/Candidates.h"
#include "ktune/Plan/Plan.h"
#include "ktune/Planner/Prompt.h"

#include <cstdlib>

using namespace ktune;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const CandidateSet Candidates = [] {
    auto j = parseJson(Embedded_candidates, "candidates");
    auto set = j ? candidatesFromJson(*j) : Expected<CandidateSet>();
    if (!j || !set)
      std::abort();
    return *set;
  }();
  auto j = planner::extractPlanJson(fuzz::text(data, size));
  if (!j)
    return 0;
  auto plan = planFromJson(*j);
  if (!plan)
    return 0;
  SourceTexts sources{{"rms_scale.cu", Embedded_source}};
  fuzz::use(formatPlanErrors(validatePlan(*plan, Candidates, sources)));
  return 0;
}
