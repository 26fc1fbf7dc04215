//===- PlanReduction.cpp - A plan without one of its parameters -----------===//
#include "ktune/Plan/PlanReduction.h"

#include <regex>

namespace ktune {

std::optional<Plan> withoutParamNamedIn(const Plan &plan,
                                        const std::string &message,
                                        std::string *dropped) {
  static const std::regex path(R"(kernels\[(\d+)\]\.params\[(\d+)\])");
  std::smatch m;
  if (!std::regex_search(message, m, path))
    return std::nullopt;
  size_t k = std::stoul(m[1]), i = std::stoul(m[2]);
  if (k >= plan.kernels.size() || i >= plan.kernels[k].params.size())
    return std::nullopt;
  Plan out = plan;
  PlanKernel &kernel = out.kernels[k];
  std::string name = kernel.params[i].name;
  if (dropped)
    *dropped = kernel.kernel + ": " + name;
  kernel.params.erase(kernel.params.begin() + i);
  // Parameter names are identifiers: a whole word in a constraint.
  const std::regex word("(^|[^A-Za-z0-9_])" + name + "($|[^A-Za-z0-9_])");
  std::erase_if(kernel.constraints, [&](const std::string &c) {
    return std::regex_search(c, word);
  });
  if (kernel.params.empty())
    out.kernels.erase(out.kernels.begin() + k);
  return out;
}

} // namespace ktune
