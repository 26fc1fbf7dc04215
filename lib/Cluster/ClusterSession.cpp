//===- ClusterSession.cpp - One ktune-tune invocation on every rank -------===//
#include "ClusterInternal.h"

#include "ktune/Cluster/Mpi.h"
#include "ktune/Support/Try.h"

#include <cstdio>

#include <cstdlib>
#include <sstream>

namespace ktune::cluster {

namespace {

void fromEnvironment(const char *name, double &value) {
  if (const char *text = std::getenv(name); text && *text) {
    char *end = nullptr;
    double v = std::strtod(text, &end);
    if (end && !*end && v > 0)
      value = v;
  }
}

} // namespace

std::string Invitation::text() const {
  std::string out = token + "@";
  for (size_t i = 0; i < addresses.size(); ++i)
    out += (i ? "," : "") + addresses[i];
  return out;
}

Expected<Invitation> Invitation::parse(const std::string &text) {
  auto at = text.find('@');
  if (at == std::string::npos || at == 0)
    return makeError("rank 0 could not listen for the other ranks");
  Invitation out;
  out.token = text.substr(0, at);
  std::stringstream in(text.substr(at + 1));
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty())
      out.addresses.push_back(item);
  if (out.addresses.empty())
    return makeError("rank 0 gave no address to reach it");
  return out;
}

ClusterOptions ClusterOptions::fromEnvironment() {
  ClusterOptions o;
  cluster::fromEnvironment("KTUNE_CLUSTER_SILENCE_SECONDS", o.silenceSeconds);
  cluster::fromEnvironment("KTUNE_CLUSTER_JOIN_SECONDS", o.joinSeconds);
  return o;
}

Expected<ClusterOutcome> runAcrossHosts(TuneCommand cmd,
                                        const EvaluatorFactory &makeEvaluator,
                                        const ClusterWorld &world,
                                        const ClusterOptions &options,
                                        Log log) {
  ClusterOutcome out;
  if (world.rank != 0) {
    KTUNE_TRY_ASSIGN(std::string text, world.shareFromRoot(""));
    KTUNE_TRY_ASSIGN(Invitation rankZero, Invitation::parse(text));
    auto workers = prepareRankWorkers(cmd, makeEvaluator);
    if (!workers) {
      // Rank 0 hears why rather than waiting for this rank in vain.
      reportSetupFailure(rankZero, world.rank, workers.error(), options);
      return std::unexpected(workers.error());
    }
    KTUNE_TRY_ASSIGN(
        out.finalizeTogether,
        serveRank(rankZero, world.rank, std::move(*workers), options, log));
    return out;
  }

  // The others hear where rank 0 listens, or nothing when it cannot.
  auto listening = Coordinator::listen(options, log);
  KTUNE_TRY(world.shareFromRoot(listening ? (*listening)->invitation().text()
                                          : std::string()));
  KTUNE_TRY_ASSIGN(auto coordinator, std::move(listening));
  cmd.joinOthers = [&](const HostWorkers &self) {
    log("rank 0 (" + hostName() + "): waiting for " +
        std::to_string(world.size - 1) + " other rank(s)");
    return coordinator->join(world.size - 1, self);
  };
  auto report = runTuneSession(cmd, makeEvaluator);
  out.lost = coordinator->lost();
  out.finalizeTogether = report && out.lost.empty();
  coordinator->finish(out.finalizeTogether);
  if (!report)
    return std::unexpected(report.error());
  out.report = std::move(*report);
  return out;
}

Expected<SessionReport> tuneAsRank(const TuneCommand &command,
                                   const EvaluatorFactory &makeEvaluator,
                                   const ClusterWorld &world, Log log,
                                   MpiEnd &end, const std::string &tool) {
  if (std::string w = mpiRecoveryWarning(); world.rank == 0 && !w.empty())
    log("warning: " + w);
  auto outcome = runAcrossHosts(command, makeEvaluator, world,
                                ClusterOptions::fromEnvironment(), log);
  // All ranks finalize together only when none was lost: otherwise each
  // leaves (the others were told so).
  end = outcome && outcome->finalizeTogether ? MpiEnd::Finalize : MpiEnd::Leave;
  if (world.rank == 0) {
    if (!outcome)
      return std::unexpected(outcome.error());
    return std::move(*outcome->report);
  }
  if (!outcome)
    std::fprintf(stderr, "%s: rank %d: error: %s\n", tool.c_str(), world.rank,
                 outcome.error().str().c_str());
  finishMpi(end);
  std::exit(outcome ? 0 : 1);
}

} // namespace ktune::cluster
