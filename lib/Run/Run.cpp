//===- Run.cpp - `ktune run`: refactor, tune, analyse, re-plan ------------===//
//
// The round loop: tune the plan, analyse, stop (interrupted, compile-only,
// no gain, rounds used up, nothing to change) or re-plan; then the best
// round and the final files. Setting up, one round and the outputs are in
// RunSetup.cpp, RunRound.cpp and RunOutput.cpp (Runner.h).
//
//===----------------------------------------------------------------------===//
#include "Runner.h"

#include "ktune/Support/FileUtil.h"
#include "ktune/Support/Try.h"

#include <cmath>

namespace ktune::run {

namespace {

std::string analysisLine(const KernelAnalysis &a) {
  std::string s = a.kernel + ": geomean speedup " + fixed(a.geomeanSpeedup, 3) +
                  "x over the default";
  if (a.rooflinePct)
    s += ", " + fixed(*a.rooflinePct, 1) + "% of the roofline at best";
  s += ", noise " + fixed(100.0 * a.noise, 2) + "%";
  for (const auto &e : a.edges)
    if (e.mattered)
      s += "; " + e.param + " at its " + e.edge + " edge (" +
           std::to_string(e.value) + ") in " + std::to_string(e.shapes) +
           " shape(s)";
  for (const auto &i : a.influence)
    if (i.insensitive)
      s += "; " + i.param + " within the noise";
  return s;
}

/// Why a compile-only run stops after round 1, with what was checked.
std::string compileOnlyStopReason(const RoundRecord &done) {
  uint64_t configs = 0, ok = 0, cut = 0;
  std::string cutReason;
  for (const auto &k : done.kernels)
    for (const auto &s : k.results.shapes) {
      configs += s.evaluations;
      auto it = s.statusCounts.find(EvalStatus::Ok);
      ok += it == s.statusCounts.end() ? 0 : it->second;
      // A time limit (or Ctrl-C) leaves shapes partly compiled.
      if (s.stopReason != "compile only") {
        ++cut;
        cutReason = s.stopReason;
      }
    }
  return "compile-only: " + std::to_string(configs) +
         " configuration-shape pairs compiled and checked (" +
         std::to_string(ok) + " within the hardware limits)" +
         (cut ? "; " + std::to_string(cut) + " shape(s) not checked in full (" +
                    cutReason + ")"
              : std::string()) +
         "; timing, analysis and re-planning need a GPU, so the run stops "
         "after round 1";
}

} // namespace

Expected<RunOutcome> Runner::run() {
  KTUNE_TRY_ASSIGN(auto first, setUp());
  if (TextPlanner) {
    planner::PlanningOptions planning;
    planning.auditDir = out("planner");
    planning.strict = false;
    planning.log = [this](const std::string &line) { log("planner: " + line); };
    Replanning = makePlannerReplanner(TextPlanner, planning);
  } else {
    Replanning = makeRuleReplanner();
  }

  RunOutcome outcome;
  Plan current = std::move(first.plan);
  std::string source = first.origin;
  std::vector<std::string> roundMessages;
  if (first.planning)
    roundMessages = std::move(first.planning->messages);
  for (int round = 1; round <= O.rounds; ++round) {
    double limit = 0;
    if (O.timeLimitSeconds > 0) {
      double used = std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - Start)
                        .count();
      double left = O.timeLimitSeconds - used;
      if (left <= 0) {
        Record.stopReason =
            "the time limit was reached before round " + std::to_string(round);
        break;
      }
      // Half of what is left while later rounds may follow, all of it in
      // the last: most runs stop after a round whose re-plan changes
      // nothing, and an even split would leave that time unused.
      limit = round < O.rounds ? left / 2 : left;
    }
    KTUNE_TRY_ASSIGN(auto rec, tuneRound(round, current, source, limit));
    rec.planningMessages = std::move(roundMessages);
    Record.rounds.push_back(std::move(rec));
    RoundRecord &done = Record.rounds.back();
    outcome.rounds = round;
    for (const auto &k : done.kernels) {
      if (!k.analysis.compileOnly)
        log("round " + std::to_string(round) + ": " + analysisLine(k.analysis));
      for (const auto &d : k.analysis.diagnoses)
        log("round " + std::to_string(round) + ": " + k.kernel +
            ": diagnosis: " + d.message);
    }

    if (O.stopRequested && O.stopRequested->load()) {
      outcome.interrupted = true;
      Record.stopReason = "interrupted during round " + std::to_string(round);
      break;
    }
    if (Mode == Backend::CompileOnly) {
      outcome.compileOnly = true;
      Record.stopReason = compileOnlyStopReason(done);
      break;
    }
    if (round >= 2) {
      std::vector<KernelAnalysis> prev, cur;
      for (const auto &k : Record.rounds[round - 2].kernels)
        prev.push_back(k.analysis);
      for (const auto &k : done.kernels)
        cur.push_back(k.analysis);
      StopDecision stop = gainStop(round, prev, cur);
      done.stop = stop;
      log("round " + std::to_string(round) + ": " + stop.reason);
      if (stop.stop) {
        Record.stopReason = stop.reason;
        break;
      }
    }
    if (round == O.rounds) {
      Record.stopReason = "the " + std::to_string(O.rounds) + " round" +
                          (O.rounds == 1 ? "" : "s") + " asked for (--rounds)";
      break;
    }

    KTUNE_TRY_ASSIGN(auto replanned, replanAfter(round, current, source));
    if (!replanned)
      break;
  }
  if (Record.rounds.empty())
    return makeError(Record.stopReason);

  chooseBestRound(outcome.compileOnly);
  outcome.bestRound = Record.bestRound;
  outcome.stopReason = Record.stopReason;
  KTUNE_TRY(writeFinal(outcome));
  return outcome;
}

Expected<bool> Runner::replanAfter(int round, Plan &next,
                                   std::string &nextSource) {
  RoundRecord &done = Record.rounds.back();
  std::vector<KernelAnalysis> analyses;
  for (const auto &k : done.kernels)
    analyses.push_back(k.analysis);
  ReplanContext ctx;
  ctx.round = round;
  ctx.plan = &done.plan;
  ctx.analyses = &analyses;
  ctx.candidates = &Source->candidates;
  ctx.sources = &Sources;
  ctx.file = Source->file;
  ctx.device = Device;
  ctx.retiredCandidates = Retired;
  ctx.kernels = plannedKernels();
  ctx.deviceName = Record.device;
  ctx.arch = Record.arch;
  for (const auto &s : Specs)
    for (const auto &[name, d] : s.spec.domains)
      ctx.specDomains.insert(name);
  KTUNE_TRY_ASSIGN(auto decision, Replanning->replan(ctx));
  decision.plan =
      planner::restrictPlan(std::move(decision.plan), plannedKernels());
  for (const auto &r : decision.reasons)
    log("round " + std::to_string(round) + ": re-plan (" +
        (TextPlanner ? "planner" : "rules") +
        "): " + std::string(replanActionName(r.action)) +
        (r.param.empty() ? "" : " " + r.param) + ": " + r.message);
  // Candidates no longer lifted are not lifted again by the rules.
  std::set<std::string> before, after;
  for (const auto &k : done.plan.kernels)
    for (const auto &p : k.params)
      before.insert(p.candidates.begin(), p.candidates.end());
  for (const auto &k : decision.plan.kernels)
    for (const auto &p : k.params)
      after.insert(p.candidates.begin(), p.candidates.end());
  for (const auto &id : before)
    if (!after.count(id))
      Retired.insert(id);
  KTUNE_TRY(writeFileAtomically(out(done.dir + "/replan.json"),
                                replanDecisionToJson(decision).dump(2) + "\n"));
  done.replan = decision;
  if (!decision.changed) {
    Record.stopReason =
        "round " + std::to_string(round) + ": the re-plan changes nothing";
    return false;
  }
  next = decision.plan;
  nextSource = decision.replanner + " after round " + std::to_string(round) +
               (decision.outcome.empty() ? "" : " (" + decision.outcome + ")");
  return true;
}

void Runner::chooseBestRound(bool compileOnly) {
  // The best round: the lowest geometric mean of the best times.
  Record.bestRound = static_cast<int>(Record.rounds.size());
  if (!compileOnly) {
    double bestScore = 0;
    bool have = false;
    for (const auto &r : Record.rounds) {
      double sum = 0;
      size_t n = 0;
      for (const auto &k : r.kernels)
        for (const auto &s : k.analysis.shapes)
          if (s.bestUs && *s.bestUs > 0) {
            sum += std::log(*s.bestUs);
            ++n;
          }
      if (n == 0 || r.kernels.size() != Kernels.size())
        continue;
      double score = sum / static_cast<double>(n);
      if (!have || score < bestScore) {
        bestScore = score;
        Record.bestRound = r.round;
        have = true;
      }
    }
    Record.bestRoundReason =
        "round " + std::to_string(Record.bestRound) +
        " has the lowest geometric mean of the per-shape best times";
  } else {
    Record.bestRoundReason = "compile-only: round 1 is the only round";
  }
}

Expected<RunOutcome> runKtune(const RunOptions &options) {
  Runner runner(options);
  return runner.run();
}

} // namespace ktune::run
