//===- UnitAnalysis.h - Detection once per translation unit -----*- C++ -*-===//
//
// Every ktune check reports findings of the same detection (collectFacts,
// buildCandidates, heuristicPlan, planRewrite). The module hands one
// UnitAnalysis to all the checks it creates, so a unit is analysed once
// however many ktune checks are enabled; each check resets it when a
// translation unit starts, and the results are keyed by the unit's
// ASTContext besides. No state outlives the checks that share it.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_LIB_TIDY_UNITANALYSIS_H
#define KTUNE_LIB_TIDY_UNITANALYSIS_H

#include "ktune/Tidy/Findings.h"

#include "clang/AST/ASTContext.h"

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ktune::tidy {

class UnitAnalysis {
public:
  /// Forgets the previous unit.
  void reset();

  /// The findings the enabled checks report in the unit of `ctx` at these
  /// settings (detection runs on first use), with conflicting fixes
  /// combined (combineFixes). `reported` filters them; the result is
  /// cached per setting.
  /// Kernels are followed into the headers `headers` lets through (none
  /// when null: clang-tidy without --header-filter); the first call of a
  /// unit decides.
  const std::vector<Finding> &
  findings(clang::ASTContext &ctx, Confidence minConfidence, NamingStyle style,
           const std::function<bool(const Finding &)> &reported,
           const refactor::HeaderFilter *headers = nullptr);

private:
  void analyse(clang::ASTContext &ctx, const refactor::HeaderFilter *headers);

  const clang::ASTContext *Context = nullptr;
  refactor::Detection Detected;
  std::map<std::pair<int, int>, std::vector<Finding>> Findings;
};

} // namespace ktune::tidy

#endif
