//===- PlanReduction.h - A plan without one of its parameters ---*- C++ -*-===//
//
// When the rewrite cannot apply a built-in plan, the parameter its error
// names is left out and the rest is applied: that parameter's sites keep
// their values, not the whole file.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_PLAN_PLANREDUCTION_H
#define KTUNE_PLAN_PLANREDUCTION_H

#include "ktune/Plan/Plan.h"

#include <optional>
#include <string>

namespace ktune {

/// `plan` without the parameter the first `kernels[K].params[I]` in
/// `message` names (an error's JSON path), the constraints that name it,
/// and its kernel where that was the kernel's last parameter. `dropped`
/// receives "kernel: NAME". nullopt where the message names no parameter
/// of the plan.
std::optional<Plan> withoutParamNamedIn(const Plan &plan,
                                        const std::string &message,
                                        std::string *dropped = nullptr);

} // namespace ktune

#endif
