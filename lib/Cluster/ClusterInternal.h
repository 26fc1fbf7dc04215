//===- ClusterInternal.h - The messages between ranks -----------*- C++ -*-===//
//
// Private to lib/Cluster. Every message is a JSON object with a "type":
//
//   rank -> 0   hello   {token, rank, host, device, arch, inputs, gpus,
//                       virtual} or {token, rank, host, error}: it could
//                       not set up
//   0 -> rank   welcome {} | refused {reason}
//   0 -> rank   eval    {id, slot, shape, config}: slot = the rank's worker
//   rank -> 0   result  {id, result}: the result as the journal writes it
//   both ways   beat    {}: every heartbeatSeconds
//   0 -> rank   done    {finalize}: the run is over; end MPI together?
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_LIB_CLUSTER_CLUSTERINTERNAL_H
#define KTUNE_LIB_CLUSTER_CLUSTERINTERNAL_H

#include "ktune/Cluster/Cluster.h"

#include <chrono>
#include <string>

namespace ktune::cluster {

using Clock = std::chrono::steady_clock;

inline double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

/// How long a receive waits before the loops look at their clocks.
inline constexpr double PollSeconds = 0.25;

/// An EvalResult as the journal writes it, without key, phase or times of
/// day, and back.
nlohmann::json resultToWire(const EvalResult &result);
Expected<EvalResult> resultFromWire(const nlohmann::json &json,
                                    const std::string &from);

/// "rank 2 (node7)"
std::string rankName(int rank, const std::string &host);

/// Tells rank 0 that this rank could not set its workers up.
void reportSetupFailure(const Invitation &rankZero, int rank,
                        const Error &error, const ClusterOptions &options);

} // namespace ktune::cluster

#endif
