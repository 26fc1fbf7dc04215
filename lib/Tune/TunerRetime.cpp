//===- TunerRetime.cpp - Finalists re-timed interleaved, the winner -------===//
//
// Each shape's finalists (the default first) are re-timed interleaved on one
// device; the winner comes from that re-timing, else from the search. With
// several devices every shape's finalists are re-timed at the end, a shape
// per device at once.
//
//===----------------------------------------------------------------------===//
#include "ktune/Tune/Tuner.h"

#include "ShapeObjective.h"
#include "TunerState.h"

#include "ktune/Support/Try.h"

#include <algorithm>
#include <map>

namespace ktune {

using tuner::outcomeOf;

/// IQR over median: how far apart repeated timings of one configuration lie.
static double relativeSpread(const Timing &t) {
  return t.medianUs > 0 ? t.iqrUs / t.medianUs : 0;
}

void Tuner::settle(ShapeResult &result, const Finalists &f,
                   const std::vector<EvalResult> &retimed) {
  // The winner: from the interleaved re-timing when it measured the default
  // and at least one finalist; else from the search times.
  bool useRetime =
      retimed.size() == f.configs.size() && outcomeOf(retimed[0]).has_value();
  result.retimed = false;
  result.speedup = 1.0;
  result.finalists.clear();
  result.margin = result.noiseThreshold = 0;
  result.keptWithinNoise = false;
  if (useRetime) {
    size_t best = 0;
    for (size_t k = 1; k < retimed.size(); ++k)
      if (auto t = outcomeOf(retimed[k]); t && *t < *outcomeOf(retimed[best]))
        best = k;
    // Leave the default only for a lead larger than the noise: a lead
    // within it would flip from one run to the next.
    const Timing &d = *retimed[0].time, &b = *retimed[best].time;
    result.margin = b.medianUs > 0 ? d.medianUs / b.medianUs - 1 : 0;
    result.noiseThreshold =
        std::max({Options.minEffect, relativeSpread(d), relativeSpread(b)});
    if (best != 0 && result.margin <= result.noiseThreshold) {
      result.keptWithinNoise = true;
      best = 0;
    }
    result.retimed = true;
    result.defaultTime = retimed[0].time;
    result.bestConfig = f.configs[best];
    result.bestTime = retimed[best].time;
  } else {
    result.defaultTime =
        outcomeOf(f.searched[0]) ? f.searched[0].time : std::optional<Timing>();
    result.bestConfig = result.defaultConfig;
    result.bestTime = result.defaultTime;
    // The finalists after the default are sorted by search time.
    if (f.configs.size() > 1)
      if (auto t = outcomeOf(f.searched[1]);
          t && (!result.bestTime || *t < result.bestTime->medianUs)) {
        result.bestConfig = f.configs[1];
        result.bestTime = f.searched[1].time;
      }
  }
  if (result.defaultTime && result.bestTime && result.bestTime->medianUs > 0)
    result.speedup = result.defaultTime->medianUs / result.bestTime->medianUs;
  for (size_t k = 0; k < f.configs.size(); ++k) {
    Measured m;
    m.config = f.configs[k];
    m.result = k < retimed.size() ? retimed[k] : f.searched[k];
    // Resources come from the search evaluation (re-timing may omit them).
    if (m.result.resources.registers < 0)
      m.result.resources = f.searched[k].resources;
    result.finalists.push_back(std::move(m));
  }
}

Status Tuner::retimeDeferred(std::vector<ShapeResult> &shapes,
                             const std::vector<DeferredRetime> &deferred) {
  // Each shape's finalists stay interleaved on one device (like with
  // like); different shapes go to different devices at once.
  std::vector<std::vector<EvalResult>> retimed(deferred.size());
  std::vector<Evaluator::RetimeJob> jobs;
  std::vector<size_t> which;
  bool stopped = Options.stopRequested && Options.stopRequested->load();
  auto aside = Eval.collectAside();
  size_t nextAside = 0;
  for (size_t i = 0; i < deferred.size(); ++i) {
    const Shape &shape = shapes[deferred[i].position].shape;
    const auto &configs = deferred[i].finalists.configs;
    if (deferred[i].aside && nextAside < aside.size())
      if (auto &done = aside[nextAside++]) {
        KTUNE_TRY(recordRetime(shape, configs, *done));
        retimed[i] = std::move(*done);
        continue;
      }
    if (auto earlier = retimeFromJournal(shape, configs))
      retimed[i] = std::move(*earlier);
    else if (!stopped) {
      jobs.push_back({shape, configs, retimeCost(shape, configs)});
      which.push_back(i);
    }
  }
  if (!jobs.empty()) {
    S->progress.note("re-timing the finalists of " +
                     std::to_string(jobs.size()) +
                     " shape(s) interleaved with their defaults, a shape per "
                     "device, " +
                     std::to_string(Eval.parallelism()) + " at a time");
    auto results = Eval.retimeShapes(jobs);
    for (size_t j = 0; j < jobs.size() && j < results.size(); ++j) {
      KTUNE_TRY(recordRetime(jobs[j].shape, jobs[j].configs, results[j]));
      retimed[which[j]] = std::move(results[j]);
    }
  }
  for (size_t i = 0; i < deferred.size(); ++i)
    settle(shapes[deferred[i].position], deferred[i].finalists, retimed[i]);
  return {};
}

double Tuner::retimeCost(const Shape &shape,
                         const std::vector<Configuration> &configs) const {
  // What their search evaluations took: a re-timing repeats them (tiny
  // kernels timed in long CUDA-graph batches cost the most).
  JournalKey key = journalKeyBase(Options, Eval);
  key.shape = shape;
  double ms = 0;
  for (const auto &c : configs) {
    key.config = c;
    if (const JournalEntry *e = Log.find(key);
        e && e->phase == JournalPhase::Search)
      ms += e->evalMs;
  }
  return ms;
}

std::optional<std::vector<EvalResult>>
Tuner::retimeFromJournal(const Shape &shape,
                         const std::vector<Configuration> &configs) {
  // A complete re-timing of the same configurations, the latest.
  std::string prefix = retimeBatchPrefix(configs);
  std::map<std::string, std::map<Configuration, EvalResult>> batches;
  std::string lastComplete;
  const JournalKey base = journalKeyBase(Options, Eval);
  for (const auto &e : Log.entries())
    if (e.phase == JournalPhase::Retime && e.key.shape == shape &&
        e.key.sameRun(base) && e.retimeBatch.rfind(prefix, 0) == 0) {
      auto &batch = batches[e.retimeBatch];
      batch[e.key.config] = e.result;
      if (batch.size() == configs.size())
        lastComplete = e.retimeBatch;
    }
  if (lastComplete.empty())
    return std::nullopt;
  std::vector<EvalResult> retimed;
  for (const auto &c : configs)
    retimed.push_back(batches[lastComplete][c]);
  return retimed;
}

Status Tuner::recordRetime(const Shape &shape,
                           const std::vector<Configuration> &configs,
                           const std::vector<EvalResult> &retimed) {
  const JournalKey base = journalKeyBase(Options, Eval);
  std::string batch = retimeBatchPrefix(configs) + "@" + utcTimestamp();
  for (size_t k = 0; k < retimed.size() && k < configs.size(); ++k) {
    JournalEntry e;
    e.key = base;
    e.key.shape = shape;
    e.key.config = configs[k];
    e.result = retimed[k];
    e.phase = JournalPhase::Retime;
    e.retimeBatch = batch;
    e.at = utcTimestamp();
    KTUNE_TRY(Log.append(e));
  }
  return {};
}

Expected<std::vector<EvalResult>>
Tuner::retimeInterleaved(const Shape &shape,
                         const std::vector<Configuration> &configs) {
  if (auto earlier = retimeFromJournal(shape, configs))
    return std::move(*earlier);
  S->progress.note("shape " + shapeText(shape) + ": re-timing " +
                   std::to_string(configs.size()) +
                   " configurations interleaved with the default");
  std::vector<EvalResult> retimed = Eval.retime(shape, configs);
  KTUNE_TRY(recordRetime(shape, configs, retimed));
  return retimed;
}

} // namespace ktune
