//===- RequestFiles.cpp - A planner request from files --------------------===//

#include "ktune/Planner/RequestFiles.h"

#include "ktune/Plan/Plan.h"
#include "ktune/Planner/ChoosePlan.h"
#include "ktune/Planner/PlanWithValidation.h"
#include "ktune/Support/FileUtil.h"
#include "ktune/Support/Try.h"

namespace ktune::planner {

Expected<PlannerRequest> readPlannerRequest(const RequestFiles &files) {
  PlannerRequest request;
  KTUNE_TRY_ASSIGN(request.candidates,
                   readJsonFileAs(files.candidates, candidatesFromJson));
  request.file = request.candidates.file;
  KTUNE_TRY_ASSIGN(request.sources,
                   readCandidateSources(request.candidates, files.candidates,
                                        files.sourceRoot));
  if (files.device) {
    KTUNE_TRY_ASSIGN(request.device,
                     readJsonFileAs(*files.device, [](const nlohmann::json &j) {
                       return deviceLimitsFromJson(j, assumedDeviceLimits());
                     }));
  }
  if (files.previousPlan) {
    KTUNE_TRY_ASSIGN(request.previousPlan,
                     readJsonFileAs(*files.previousPlan, planFromJson));
  }
  if (files.tuningSummary) {
    KTUNE_TRY_ASSIGN(auto json, readJsonFile(*files.tuningSummary));
    if (auto errors = checkTuningSummary(json); !errors.empty())
      return makeError(*files.tuningSummary + ": " + errors.front().str());
    request.tuningSummary = std::move(json);
  }
  if (request.tuningSummary.is_null() != !request.previousPlan)
    return makeError("--previous-plan and --tuning-summary go together");
  return request;
}

std::expected<std::string, std::vector<Error>>
checkPlanFile(const std::string &planPath, const PlannerRequest &request) {
  auto plan = readJsonFileAs(planPath, planFromJson);
  if (!plan)
    return std::unexpected(std::vector<Error>{plan.error()});
  auto errors = validatePlan(*plan, request.candidates, request.sources);
  if (!errors.empty()) {
    for (auto &e : errors)
      e = withContext(e, planPath);
    return std::unexpected(std::move(errors));
  }
  size_t params = 0;
  for (const auto &k : plan->kernels)
    params += k.params.size();
  return planPath + " is valid: " + std::to_string(params) + " parameter" +
         (params == 1 ? "" : "s") + " in " +
         std::to_string(plan->kernels.size()) + " kernel" +
         (plan->kernels.size() == 1 ? "" : "s");
}

} // namespace ktune::planner
