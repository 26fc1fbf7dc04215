//===- Tuner.cpp - The tuning loop: default, search, re-time, choose ------===//
#include "ktune/Tune/Tuner.h"

#include "ShapeObjective.h"
#include "TunerProgress.h"
#include "TunerState.h"

#include "ktune/Support/Sha256.h"
#include "ktune/Support/Try.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <random>
#include <set>

namespace ktune {

using tuner::Clock;
using tuner::outcomeOf;
using tuner::Progress;
using tuner::ProgressLine;
using tuner::secondsSince;
using tuner::ShapeObjective;

//===----------------------------------------------------------------------===//
// The loop
//===----------------------------------------------------------------------===//

Tuner::Tuner(SpaceDefinition space, std::vector<Shape> shapes,
             Evaluator &evaluator, Journal &journal, TuneOptions options)
    : Space(std::move(space)), Shapes(std::move(shapes)), Eval(evaluator),
      Log(journal), Options(std::move(options)),
      S(std::make_shared<State>(Options.progress)) {
  if (Shapes.empty())
    Shapes.push_back(Shape{});
}

Expected<TuneResults> Tuner::run() {
  TuneResults out;
  out.kernel = Options.kernel;
  out.templatePath = Options.templatePath;
  out.templateSha256 = Options.templateSha256;
  out.device = Eval.device();
  out.arch = Eval.arch();
  out.strategy = Options.compileOnly ? "" : Options.strategyName;
  out.seed = Options.seed;
  out.budget = Options.budget;
  out.compileOnly = Options.compileOnly;
  for (const auto &p : Space.params)
    out.params.push_back(p.name);
  if (!Options.compileOnly && !Options.makeStrategy)
    return makeError("no search strategy given");

  S->spaces.assign(Shapes.size(), std::nullopt);
  // Several devices: every shape's finalists are re-timed at the end, a
  // shape per device, instead of one shape at a time on the first device.
  // One device keeps today's order (and journal).
  bool defer = Eval.parallelism() > 1;
  std::vector<DeferredRetime> deferred;
  // Nothing queued aside by an earlier search that ended on an error.
  (void)Eval.collectAside();
  if (!Options.compileOnly)
    compileWholeSmallSpaces();
  if (defer && !Options.compileOnly)
    KTUNE_TRY(evaluateDefaultsTogether());
  for (size_t i = 0; i < Shapes.size(); ++i) {
    if (Options.stopRequested && Options.stopRequested->load())
      break;
    // Share the time left evenly among the shapes still to search.
    double deadline = 0;
    if (Options.timeLimitSeconds > 0) {
      double left = Options.timeLimitSeconds - secondsSince(S->start);
      deadline = secondsSince(S->start) +
                 std::max(0.0, left) / static_cast<double>(Shapes.size() - i);
    }
    KTUNE_TRY_ASSIGN(auto shape,
                     Options.compileOnly
                         ? compileShape(i)
                         : tuneShape(i, deadline, defer ? &deferred : nullptr));
    out.shapes.push_back(std::move(shape));
  }
  if (!deferred.empty())
    KTUNE_TRY(retimeDeferred(out.shapes, deferred));
  S->progress.endLine();
  out.failures = S->failures.summaries();
  out.compiler = Eval.compiler();
  if (Options.compileOnly || out.shapes.empty())
    return out;

  // The general configuration: each shape's finalists are the candidates,
  // measured everywhere (from the journal, else evaluated now).
  std::vector<Configuration> candidates;
  auto addCandidate = [&](const Configuration &c) {
    if (std::find(candidates.begin(), candidates.end(), c) == candidates.end())
      candidates.push_back(c);
  };
  // A configuration table: every case with its own shapes' winners first.
  std::vector<std::pair<Shape, Configuration>> bests;
  for (const auto &s : out.shapes)
    bests.emplace_back(s.shape, s.bestConfig);
  if (auto merged = mergedCases(Space, out.shapes[0].defaultConfig, bests))
    addCandidate(*merged);
  for (const auto &s : out.shapes)
    addCandidate(s.bestConfig);
  for (const auto &s : out.shapes) {
    size_t n = 0;
    for (const auto &m : s.finalists)
      if (m.config != s.defaultConfig &&
          n++ < Options.generalCandidatesPerShape)
        addCandidate(m.config);
  }
  std::vector<Shape> tunedShapes;
  for (const auto &s : out.shapes)
    tunedShapes.push_back(s.shape);

  bool stopped = Options.stopRequested && Options.stopRequested->load();
  JournalKey base = journalKeyBase(Options, Eval);
  auto lookup = [&](const Shape &shape,
                    const Configuration &config) -> const JournalEntry * {
    JournalKey key = base;
    key.shape = shape;
    key.config = config;
    return Log.find(key);
  };
  std::vector<Configuration> toPrepare;
  for (size_t i = 0; i < tunedShapes.size(); ++i)
    for (const auto &config : candidates) {
      Configuration c = onShape(Space, tunedShapes[i], config);
      if (!lookup(tunedShapes[i], c) &&
          std::find(toPrepare.begin(), toPrepare.end(), c) == toPrepare.end())
        toPrepare.push_back(c);
    }
  if (!toPrepare.empty() && !stopped) {
    S->progress.note("measuring " + std::to_string(toPrepare.size()) +
                     " general-configuration candidate(s) on the shapes "
                     "their search did not visit");
    Eval.prepare(toPrepare);
  }
  if (Eval.parallelism() > 1 && !stopped) {
    // What the general phase will ask for, on every device at once.
    std::vector<Evaluator::ShapedConfig> missing;
    for (size_t i = 0; i < tunedShapes.size(); ++i)
      for (const auto &config : candidates) {
        Configuration c = onShape(Space, tunedShapes[i], config);
        if (i < S->spaces.size() && S->spaces[i]) {
          auto p = S->spaces[i]->fromConfig(c);
          if (!p || !S->spaces[i]->isValid(*p))
            continue;
        }
        missing.push_back({tunedShapes[i], c});
      }
    KTUNE_TRY(evaluateTogether(missing, JournalPhase::General));
  }
  Status journalError;
  MeasureFn measure =
      [&](const Shape &shape,
          const Configuration &asChosen) -> std::optional<double> {
    Configuration config = onShape(Space, shape, asChosen);
    if (const JournalEntry *e = lookup(shape, config))
      return outcomeOf(e->result);
    if (stopped)
      return std::nullopt;
    size_t i = std::find(tunedShapes.begin(), tunedShapes.end(), shape) -
               tunedShapes.begin();
    if (i < S->spaces.size() && S->spaces[i]) {
      auto p = S->spaces[i]->fromConfig(config);
      if (!p || !S->spaces[i]->isValid(*p))
        return std::nullopt; // not a configuration of this shape's space
    }
    JournalEntry e;
    e.key = base;
    e.key.shape = shape;
    e.key.config = config;
    e.phase = JournalPhase::General;
    auto begin = Clock::now();
    e.result = Eval.evaluate(shape, config);
    e.evalMs =
        std::chrono::duration<double, std::milli>(Clock::now() - begin).count();
    e.at = utcTimestamp();
    if (auto ok = Log.append(e); !ok && journalError)
      journalError = std::unexpected(ok.error());
    return outcomeOf(e.result);
  };
  out.general = chooseGeneralConfiguration(
      tunedShapes, out.shapes[0].defaultConfig, candidates, measure);
  KTUNE_TRY(journalError);
  out.compiler = Eval.compiler();
  if (out.general && !stopped)
    for (size_t i = 0;
         i < out.shapes.size() && i < out.general->perShape.size(); ++i)
      KTUNE_TRY(adoptGeneralWhereFaster(out.shapes[i], out.general->config,
                                        out.general->perShape[i].medianUs));
  return out;
}

Status Tuner::evaluateTogether(const std::vector<Evaluator::ShapedConfig> &all,
                               JournalPhase phase) {
  JournalKey base = journalKeyBase(Options, Eval);
  std::vector<Evaluator::ShapedConfig> tasks;
  for (const auto &t : all) {
    JournalKey key = base;
    key.shape = t.shape;
    key.config = t.config;
    if (!Log.find(key))
      tasks.push_back(t);
  }
  if (tasks.empty())
    return {};
  std::vector<Configuration> configs;
  for (const auto &t : tasks)
    if (std::find(configs.begin(), configs.end(), t.config) == configs.end())
      configs.push_back(t.config);
  Eval.prepare(configs);
  Status status;
  auto begin = Clock::now();
  Eval.evaluateAcrossShapes(tasks, [&](size_t i, EvalResult result) {
    JournalEntry e;
    e.key = base;
    e.key.shape = tasks[i].shape;
    e.key.config = tasks[i].config;
    e.phase = phase;
    e.result = std::move(result);
    // As for a search batch: from the batch's start.
    e.evalMs =
        std::chrono::duration<double, std::milli>(Clock::now() - begin).count();
    e.at = utcTimestamp();
    S->newEvaluations++;
    if (auto ok = Log.append(e, Journal::Sync::Later); !ok && status)
      status = std::unexpected(ok.error());
  });
  Log.sync();
  return status;
}

/// A shape whose valid space fits its budget is searched whole: its
/// configurations are compiled first, together (every core, batched), not
/// one at a time as the search reaches them, which would spend the first
/// shapes' share of a time limit compiling.
void Tuner::compileWholeSmallSpaces() {
  std::vector<Configuration> configs;
  for (const auto &shape : Shapes) {
    auto space = spaceAt(Space, shape);
    if (!space)
      continue;
    std::vector<Configuration> mine;
    bool fits = true;
    space->forEachValid([&](const Point &p) {
      if (mine.size() >= Options.budget)
        return fits = false;
      mine.push_back(space->toConfig(p));
      return true;
    });
    if (!fits)
      continue;
    for (auto &c : mine)
      if (std::find(configs.begin(), configs.end(), c) == configs.end())
        configs.push_back(std::move(c));
  }
  if (configs.size() < 2 ||
      (Options.stopRequested && Options.stopRequested->load()))
    return;
  S->progress.note("compiling the " + std::to_string(configs.size()) +
                   " configuration(s) of spaces searched whole, together");
  Eval.prepare(configs);
}

Status Tuner::evaluateDefaultsTogether() {
  std::vector<Evaluator::ShapedConfig> defaults;
  for (const auto &shape : Shapes) {
    // A shape whose space cannot be built says so when it is searched.
    auto space = spaceAt(Space, shape);
    if (!space)
      continue;
    if (auto p = space->defaultPoint())
      defaults.push_back({shape, space->toConfig(*p)});
  }
  if (defaults.size() < 2 ||
      (Options.stopRequested && Options.stopRequested->load()))
    return {};
  S->progress.note("evaluating the default configuration of " +
                   std::to_string(defaults.size()) + " shapes, " +
                   std::to_string(Eval.parallelism()) + " at a time");
  return evaluateTogether(defaults, JournalPhase::Default);
}

Expected<ShapeResult> Tuner::tuneShape(size_t index, double deadlineSeconds,
                                       std::vector<DeferredRetime> *deferred) {
  const Shape &shape = Shapes[index];
  KTUNE_TRY_ASSIGN(S->spaces[index], spaceAt(Space, shape));
  const SearchSpace &space = *S->spaces[index];
  auto defaultPoint = space.defaultPoint();
  if (!defaultPoint)
    return makeError("no default configuration: every tunable parameter "
                     "needs a default (the reference)",
                     "shape " + shapeText(shape));

  ShapeResult result;
  result.shape = shape;
  result.defaultConfig = space.toConfig(*defaultPoint);

  Progress &progress = S->progress;
  ShapeObjective::Context ctx{
      space,
      shape,
      Eval,
      Log,
      journalKeyBase(Options, Eval),
      Options.budget,
      S->start + std::chrono::duration_cast<Clock::duration>(
                     std::chrono::duration<double>(deadlineSeconds)),
      Options.timeLimitSeconds > 0,
      Options.stopRequested,
      nullptr};
  std::optional<double> defaultUs;
  ctx.onEvaluation = [&, this](const ShapeObjective &o) {
    S->newEvaluations++;
    ProgressLine line;
    line.shapeIndex = index;
    line.shapeCount = Shapes.size();
    line.shape = shapeText(shape);
    line.spent = o.spent();
    line.budget = Options.budget;
    line.bestUs = o.bestUs();
    line.defaultUs = defaultUs;
    if (o.newEvaluations() > 0) {
      double perEval = o.newSeconds() / static_cast<double>(o.newEvaluations());
      double left = static_cast<double>(Options.budget -
                                        std::min(Options.budget, o.spent())) +
                    static_cast<double>(Options.budget) *
                        static_cast<double>(Shapes.size() - index - 1);
      line.etaSeconds = perEval * left;
      if (Options.timeLimitSeconds > 0)
        line.etaSeconds = std::min(line.etaSeconds, Options.timeLimitSeconds -
                                                        secondsSince(S->start));
    }
    progress.update(line);
  };
  ShapeObjective objective(std::move(ctx));
  if (objective.resumed() > 0)
    progress.note("shape " + shapeText(shape) + ": " +
                  std::to_string(objective.resumed()) +
                  " evaluation(s) read back from the journal");

  // The reference first: when it fails, nothing can be checked against it.
  objective.prefetch({*defaultPoint});
  defaultUs = objective.evaluateDefault(*defaultPoint);
  if (!defaultUs && !objective.stopped())
    if (auto r = objective.result(*defaultPoint))
      return std::unexpected(
          defaultFailureError(shape, result.defaultConfig, *r));

  if (!objective.exhausted()) {
    KTUNE_TRY_ASSIGN(auto strategy, Options.makeStrategy());
    std::mt19937_64 rng(Options.seed + 0x9E3779B97F4A7C15ull * index);
    strategy->run(space, objective, rng);
  }
  KTUNE_TRY(objective.status());
  result.stopReason = objective.stopped()                   ? "interrupted"
                      : objective.spent() >= Options.budget ? "budget"
                      : objective.timeUp()                  ? "time limit"
                                                            : "space exhausted";
  result.evaluations = objective.spent();
  for (const auto &p : objective.order())
    if (auto r = objective.result(p)) {
      ++result.statusCounts[r->status];
      S->failures.add(*r);
    }

  // Finalists: the best few by search time, re-timed with the default.
  // Only budgeted evaluations compete: what the general-configuration phase
  // measured here must not change the finalists of a rerun.
  std::vector<std::pair<double, Point>> timed;
  for (const auto &p : objective.order())
    if (auto r = objective.result(p); r && p != *defaultPoint)
      if (auto t = outcomeOf(*r))
        timed.emplace_back(*t, p);
  std::sort(timed.begin(), timed.end());
  Finalists f;
  f.configs = {result.defaultConfig};
  f.searched = {objective.result(*defaultPoint).value_or(EvalResult{})};
  for (size_t k = 0; k < timed.size() && k < Options.topK; ++k) {
    f.configs.push_back(space.toConfig(timed[k].second));
    f.searched.push_back(*objective.result(timed[k].second));
  }

  bool retime = f.configs.size() > 1 && !objective.stopped();
  std::vector<EvalResult> retimed;
  if (retime && deferred) {
    // Settled from the search times for now; re-timed on a device the
    // search can spare while it goes on, else with the other shapes' at
    // the end, a shape per device.
    DeferredRetime d{index, f};
    if (!retimeFromJournal(shape, f.configs))
      d.aside =
          Eval.retimeAside({shape, f.configs, retimeCost(shape, f.configs)});
    deferred->push_back(std::move(d));
  } else if (retime) {
    KTUNE_TRY_ASSIGN(retimed, retimeInterleaved(shape, f.configs));
  }
  settle(result, f, retimed);
  return result;
}

Status Tuner::adoptGeneralWhereFaster(ShapeResult &shape,
                                      const Configuration &general,
                                      double generalUs) {
  // A shape whose own search was cut short (time limit, small budget) can
  // lose to the general configuration at that very shape. Only a clear win
  // in the general phase's measurement earns a re-timing; the interleaved
  // re-timing with the default and the shape's winner decides.
  constexpr double kClearWin = 0.98;
  if (general == shape.bestConfig || !shape.bestTime || generalUs <= 0 ||
      generalUs >= kClearWin * shape.bestTime->medianUs)
    return {};
  // Already re-timed against the winner at this shape: that decided.
  if (shape.retimed)
    for (const auto &m : shape.finalists)
      if (m.config == general)
        return {};
  std::vector<Configuration> configs{shape.defaultConfig};
  if (shape.bestConfig != shape.defaultConfig)
    configs.push_back(shape.bestConfig);
  configs.push_back(general);
  KTUNE_TRY_ASSIGN(auto retimed, retimeInterleaved(shape.shape, configs));
  if (retimed.size() != configs.size() || !outcomeOf(retimed[0]))
    return {};
  size_t best = 0;
  for (size_t k = 1; k < retimed.size(); ++k)
    if (auto t = outcomeOf(retimed[k]); t && *t < *outcomeOf(retimed[best]))
      best = k;
  if (configs[best] != general)
    return {};
  shape.retimed = true;
  shape.defaultTime = retimed[0].time;
  shape.bestConfig = general;
  shape.bestTime = retimed[best].time;
  shape.speedup = shape.defaultTime->medianUs / shape.bestTime->medianUs;
  Measured m;
  m.config = general;
  m.result = retimed[best];
  shape.finalists.push_back(std::move(m));
  shape.adoptedGeneral = true;
  return {};
}

} // namespace ktune
