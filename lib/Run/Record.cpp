//===- Record.cpp - run.json ----------------------------------------------===//
#include "ktune/Run/Record.h"

namespace ktune::run {

using nlohmann::json;

namespace {
json gpuActivityToJson(const std::vector<WorkerActivity> &gpus) {
  json out = json::array();
  for (const auto &a : gpus) {
    json g = {{"gpu", a.gpu},
              {"evaluations", a.evaluations},
              {"busy_seconds", a.busySeconds}};
    if (a.rank >= 0)
      g["rank"] = a.rank;
    if (a.lost)
      g["lost"] = a.lostReason;
    out.push_back(std::move(g));
  }
  return out;
}
} // namespace

json runRecordToJson(const RunRecord &r) {
  json rounds = json::array();
  for (const auto &round : r.rounds) {
    json kernels = json::array();
    for (const auto &k : round.kernels) {
      json kernel = {{"kernel", k.kernel},
                     {"results", k.resultsPath},
                     {"analysis", kernelAnalysisToJson(k.analysis)}};
      if (!k.gpus.empty()) {
        kernel["gpus"] = gpuActivityToJson(k.gpus);
        kernel["tune_seconds"] = k.tuneSeconds;
      }
      kernels.push_back(std::move(kernel));
    }
    json j{{"round", round.round},
           {"dir", round.dir},
           {"plan", planToJson(round.plan)},
           {"plan_source", round.planSource},
           {"planning_messages", round.planningMessages},
           {"template", round.dir + "/" + round.templateFile},
           {"manifest", round.dir + "/" + round.manifestFile},
           {"refactor_notes", round.refactorNotes},
           {"kernels", kernels},
           {"seconds", round.seconds}};
    j["replan"] =
        round.replan ? replanDecisionToJson(*round.replan) : json(nullptr);
    j["stop"] = round.stop ? json{{"stop", round.stop->stop},
                                  {"reason", round.stop->reason}}
                           : json(nullptr);
    rounds.push_back(j);
  }
  json j{{"ktune", RunRecordVersion},
         {"source", r.source},
         {"command_line", r.commandLine},
         {"started_at", r.startedAt},
         {"backend", r.backend},
         {"device", r.device},
         {"arch", r.arch},
         {"max_threads_per_sm", r.maxThreadsPerSM},
         {"strategy", r.strategy},
         {"seed", r.seed},
         {"budget", r.budget ? json(*r.budget) : json(nullptr)},
         {"rounds_asked", r.roundsAsked},
         {"roofline",
          {{"tbps", r.roofline.tbps ? json(*r.roofline.tbps) : json(nullptr)},
           {"source", r.roofline.source}}},
         {"rounds", rounds},
         {"best_round", r.bestRound},
         {"best_round_reason", r.bestRoundReason},
         {"stop_reason", r.stopReason},
         {"notes", r.notes}};
  return j;
}

} // namespace ktune::run
