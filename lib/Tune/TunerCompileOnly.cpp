//===- TunerCompileOnly.cpp - Compiling a shape's space, timing nothing ---===//
//
// --compile-only: the default first (when it does not compile, nothing else
// is), then the valid space in order up to the budget, in batches the
// evaluator compiles in parallel. Nothing is launched or timed.
//
//===----------------------------------------------------------------------===//
#include "ktune/Tune/Tuner.h"

#include "ShapeObjective.h"
#include "TunerProgress.h"
#include "TunerState.h"

#include "ktune/Support/Try.h"

#include <algorithm>

namespace ktune {

using tuner::Clock;
using tuner::ProgressLine;
using tuner::ShapeObjective;

Expected<ShapeResult> Tuner::compileShape(size_t index) {
  const Shape &shape = Shapes[index];
  KTUNE_TRY_ASSIGN(S->spaces[index], spaceAt(Space, shape));
  const SearchSpace &space = *S->spaces[index];

  ShapeResult result;
  result.shape = shape;
  result.stopReason = "compile only";
  auto defaultPoint = space.defaultPoint();
  if (defaultPoint)
    result.defaultConfig = result.bestConfig = space.toConfig(*defaultPoint);

  // The default first, then the valid space in order, up to the budget.
  std::vector<Point> points;
  if (defaultPoint)
    points.push_back(*defaultPoint);
  space.forEachValid([&](const Point &p) {
    if (points.size() >= Options.budget)
      return false;
    if (!defaultPoint || p != *defaultPoint)
      points.push_back(p);
    return true;
  });

  ShapeObjective::Context ctx{space,
                              shape,
                              Eval,
                              Log,
                              journalKeyBase(Options, Eval),
                              Options.budget,
                              Clock::now(),
                              false,
                              Options.stopRequested,
                              nullptr};
  ctx.onEvaluation = [&, this](const ShapeObjective &o) {
    ProgressLine line;
    line.shapeIndex = index;
    line.shapeCount = Shapes.size();
    line.shape = shapeText(shape);
    line.spent = o.spent();
    line.budget = points.size();
    line.timed = false;
    if (o.newEvaluations() > 0) {
      double perEval = o.newSeconds() / static_cast<double>(o.newEvaluations());
      double left =
          static_cast<double>(points.size() -
                              std::min<uint64_t>(points.size(), o.spent())) +
          static_cast<double>(points.size()) *
              static_cast<double>(Shapes.size() - index - 1);
      line.etaSeconds = perEval * left;
    }
    S->progress.update(line);
  };
  ShapeObjective objective(std::move(ctx));
  if (objective.resumed() > 0)
    S->progress.note("shape " + shapeText(shape) + ": " +
                     std::to_string(objective.resumed()) +
                     " evaluation(s) read back from the journal");
  // The default alone first: when it does not compile, nothing else is
  // compiled (and a batch never has to be split to find that out).
  if (defaultPoint && !objective.stopped()) {
    objective.prefetch({*defaultPoint});
    objective.evaluateDefault(*defaultPoint);
    if (auto r = objective.result(*defaultPoint);
        r && r->status != EvalStatus::Ok)
      return std::unexpected(
          defaultFailureError(shape, result.defaultConfig, *r));
  }
  size_t batch = std::max<size_t>(1, Options.prepareBatch);
  for (size_t start = 0; start < points.size(); start += batch) {
    if (objective.stopped())
      break;
    std::vector<Point> chunk(points.begin() + start,
                             points.begin() +
                                 std::min(points.size(), start + batch));
    objective.prefetch(chunk);
    for (const auto &p : chunk) {
      if (defaultPoint && p == *defaultPoint)
        objective.evaluateDefault(p);
      else
        objective.evaluate(p);
    }
  }
  KTUNE_TRY(objective.status());
  if (objective.stopped())
    result.stopReason = "interrupted";
  result.evaluations = objective.spent();
  for (const auto &p : objective.order())
    if (auto r = objective.result(p)) {
      ++result.statusCounts[r->status];
      S->failures.add(*r);
      result.finalists.push_back({space.toConfig(p), *r});
    }
  return result;
}

} // namespace ktune
