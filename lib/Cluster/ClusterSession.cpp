//===- ClusterSession.cpp - One ktune-tune invocation on every rank -------===//
#include "ClusterInternal.h"

#include "ktune/Support/Try.h"

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

std::vector<std::string> splitAddresses(const std::string &text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty())
      out.push_back(item);
  return out;
}

} // namespace

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
    std::vector<std::string> addresses = splitAddresses(text);
    if (addresses.empty())
      return makeError("rank 0 could not listen for the other ranks");
    auto workers = prepareRankWorkers(cmd, makeEvaluator);
    if (!workers) {
      // Rank 0 hears why rather than waiting for this rank in vain.
      reportSetupFailure(addresses, world.rank, workers.error(), options);
      return std::unexpected(workers.error());
    }
    KTUNE_TRY(
        serveRank(addresses, world.rank, std::move(*workers), options, log));
    return out;
  }

  // The others hear rank 0's addresses, or none when it cannot listen.
  auto listening = Coordinator::listen(options, log);
  std::string addresses;
  if (listening)
    for (const auto &a : (*listening)->addresses())
      addresses += (addresses.empty() ? "" : ",") + a;
  KTUNE_TRY(world.shareFromRoot(addresses));
  KTUNE_TRY_ASSIGN(auto coordinator, std::move(listening));
  cmd.joinOthers = [&](const HostWorkers &self) {
    log("rank 0 (" + hostName() + "): waiting for " +
        std::to_string(world.size - 1) + " other rank(s)");
    return coordinator->join(world.size - 1, self);
  };
  auto report = runTuneSession(cmd, makeEvaluator);
  coordinator->finish();
  out.lost = coordinator->lost();
  if (!report)
    return std::unexpected(report.error());
  out.report = std::move(*report);
  return out;
}

} // namespace ktune::cluster
