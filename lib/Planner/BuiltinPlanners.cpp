//===- BuiltinPlanners.cpp - The heuristic planner behind the interface ---===//
#include "ktune/Planner/Planner.h"

namespace ktune::planner {

namespace {

class HeuristicPlanner final : public Planner {
public:
  std::string describe() const override { return "heuristic"; }
  bool isTextPlanner() const override { return false; }
  PlannerReply propose(const PlannerRequest &request, const std::string &,
                       int) override {
    PlannerReply reply;
    reply.plan = defaultPlan(request.candidates, request.sources);
    reply.plan->planner = "heuristic";
    reply.transport = {{"planner", "heuristic"}};
    return reply;
  }
};

} // namespace

std::unique_ptr<Planner> makeHeuristicPlanner() {
  return std::make_unique<HeuristicPlanner>();
}

} // namespace ktune::planner
