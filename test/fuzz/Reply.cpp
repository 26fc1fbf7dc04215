//===- Reply.cpp - Fuzzes a planner's reply -------------------------------===//
//
// The input is what an LLM answered: the plan is looked for in it, read and
// validated, as ktune-plan --planner does.
//
//===----------------------------------------------------------------------===//
#include "PlanInputs.h"
#include "ktune/Plan/Plan.h"
#include "ktune/Planner/Prompt.h"

using namespace ktune;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto j = planner::extractPlanJson(fuzz::text(data, size));
  if (!j)
    return 0;
  auto plan = planFromJson(*j);
  if (!plan)
    return 0;
  fuzz::use(fuzz::embeddedPlanErrors(*plan));
  return 0;
}
