//===- Plan.cpp - Fuzzes reading and validating a plan --------------------===//
//
// The input is a plan file, read and validated against a real candidate set
// (test/planner/Inputs/rms_scale.*), as ktune-refactor --plan does.
//
//===----------------------------------------------------------------------===//
#include "ktune/Plan/Plan.h"
#include "PlanInputs.h"

using namespace ktune;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto plan = fuzz::read(data, size, planFromJson);
  if (!plan)
    return 0;
  fuzz::use(fuzz::embeddedPlanErrors(*plan));
  fuzz::use(planToJson(*plan).dump());
  return 0;
}
