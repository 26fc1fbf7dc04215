//===- ShapeObjective.cpp - The objective of one shape --------------------===//
#include "ShapeObjective.h"

namespace ktune::tuner {

std::optional<double> outcomeOf(const EvalResult &r) {
  if (r.status == EvalStatus::Ok && r.time && r.time->medianUs > 0)
    return r.time->medianUs;
  return std::nullopt;
}

ShapeObjective::ShapeObjective(Context c) : C(std::move(c)) {
  LastEnd = Clock::now();
  // Everything the journal knows at this shape, latest entry first wins.
  for (const auto &e : C.journal.entries()) {
    if (e.phase == JournalPhase::Retime || !sameRun(e.key))
      continue;
    auto p = C.space.fromConfig(e.key.config);
    if (!p || p->size() != C.space.dims() ||
        e.key.config.size() != C.space.dims())
      continue;
    Known[*p] = outcomeOf(e.result);
    Results[*p] = e.result;
    if (e.phase == JournalPhase::Default || e.phase == JournalPhase::Search)
      if (Budgeted.insert(*p).second) {
        ++Spent;
        Order.push_back(*p);
      }
  }
  Resumed = Spent;
}

std::optional<double> ShapeObjective::run(const Point &p, JournalPhase phase) {
  auto begin = Clock::now();
  double searchMs =
      std::chrono::duration<double, std::milli>(begin - LastEnd).count();
  JournalEntry e;
  e.key = C.keyBase;
  e.key.shape = C.shape;
  e.key.config = C.space.toConfig(p);
  e.phase = phase;
  if (phase == JournalPhase::Search && !C.space.isValid(p)) {
    // Strategies should only ask for valid points; answer without
    // launching anything, and record why.
    e.result.status = EvalStatus::Pruned;
    e.result.reason =
        "constraint violated: " + C.space.violatedConstraint(p).value_or("?");
  } else {
    e.result = C.eval.evaluate(C.shape, e.key.config);
  }
  return record(p, e, Journal::Sync::Now, begin, searchMs);
}

std::optional<double> ShapeObjective::record(const Point &p, JournalEntry &e,
                                             Journal::Sync sync,
                                             Clock::time_point begin,
                                             double searchMs) {
  LastEnd = Clock::now();
  e.evalMs = std::chrono::duration<double, std::milli>(LastEnd - begin).count();
  e.searchMs = searchMs;
  e.at = utcTimestamp();
  if (auto ok = C.journal.append(e, sync); !ok && JournalStatus)
    JournalStatus = std::unexpected(ok.error());
  auto outcome = outcomeOf(e.result);
  Known[p] = outcome;
  Results[p] = e.result;
  Budgeted.insert(p);
  Order.push_back(p);
  ++Spent;
  ++New;
  NewSeconds += (e.evalMs + searchMs) / 1000.0;
  if (C.onEvaluation)
    C.onEvaluation(*this);
  return outcome;
}

std::vector<std::optional<double>>
ShapeObjective::evaluateBatch(const std::vector<Point> &points) {
  std::vector<std::optional<double>> out(points.size());
  std::vector<size_t> fresh; // indices of new, valid points
  for (size_t k = 0; k < points.size(); ++k) {
    const Point &p = points[k];
    if (auto it = Known.find(p); it != Known.end()) {
      Asked.insert(p);
      out[k] = it->second;
      continue;
    }
    if (Spent + fresh.size() >= C.budget || timeUp() || stopped())
      continue;
    Asked.insert(p);
    if (!C.space.isValid(p)) {
      out[k] = run(p, JournalPhase::Search); // answered as pruned
      continue;
    }
    fresh.push_back(k);
  }
  if (fresh.empty())
    return out;
  std::vector<Configuration> configs;
  for (size_t k : fresh)
    configs.push_back(C.space.toConfig(points[k]));
  auto begin = Clock::now();
  double searchMs =
      std::chrono::duration<double, std::milli>(begin - LastEnd).count();
  C.eval.evaluateBatch(C.shape, configs, [&](size_t i, EvalResult result) {
    JournalEntry e;
    e.key = C.keyBase;
    e.key.shape = C.shape;
    e.key.config = configs[i];
    e.phase = JournalPhase::Search;
    e.result = std::move(result);
    // Each finished evaluation is journaled at once.
    out[fresh[i]] =
        record(points[fresh[i]], e, Journal::Sync::Later, begin, searchMs);
    searchMs = 0;
  });
  C.journal.sync(); // the batch's lines on disk before the strategy goes on
  return out;
}

} // namespace ktune::tuner
