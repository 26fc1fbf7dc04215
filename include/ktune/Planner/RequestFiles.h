//===- ktune/Planner/RequestFiles.h - Requests from files -*- C++ -*-===//
//
// What ktune-plan reads: the candidates `ktune-refactor --candidates`
// printed, the sources they point into, and optionally the device limits
// and a re-plan round's previous plan and tuning summary. Also the check of
// a plan file against them (`ktune-plan --check`).
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_PLANNER_REQUESTFILES_H
#define KTUNE_PLANNER_REQUESTFILES_H

#include "ktune/Planner/Planner.h"

#include <optional>
#include <string>
#include <vector>

namespace ktune::planner {

/// The files of a request; nullopt = not given.
struct RequestFiles {
  std::string candidates;
  /// What the candidates' file names are relative to (default: the
  /// candidates file's directory, then the current directory).
  std::optional<std::string> sourceRoot;
  std::optional<std::string> device; // default: sm_90 limits
  /// A re-plan round: both or neither.
  std::optional<std::string> previousPlan, tuningSummary;
};

/// Reads the request; errors name the file (and the flag for a missing
/// pair).
Expected<PlannerRequest> readPlannerRequest(const RequestFiles &files);

/// Validates the plan in `planPath` against the request's candidates and
/// sources: "PATH is valid: N parameters in M kernels", or every reason
/// (one error each, naming the file).
std::expected<std::string, std::vector<Error>>
checkPlanFile(const std::string &planPath, const PlannerRequest &request);

} // namespace ktune::planner

#endif
