//===- ktune/Cluster/Cluster.h - One search over several hosts --*- C++ -*-===//
//
// A run across hosts: rank 0 runs the search and owns the journal and the
// results; every other rank joins it over TCP and evaluates, on its own
// GPUs, the configurations rank 0 sends it, one at a time per GPU. On rank
// 0 each GPU of another rank is one worker of its DeviceGroup, beside its
// own GPUs: a worker takes the next configuration of a batch when free.
//
// A rank that dies (its socket closes) or falls silent (no heartbeat for
// `silenceSeconds`) is lost: the configurations it had in flight go to the
// other workers and the run goes on without it. MPI only starts the ranks
// and tells them where rank 0 listens (ClusterWorld); docs/multi-gpu.md
// says why the work does not travel over MPI.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_CLUSTER_CLUSTER_H
#define KTUNE_CLUSTER_CLUSTER_H

#include "ktune/Cluster/Wire.h"
#include "ktune/Tune/Session.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ktune::cluster {

struct ClusterOptions {
  double heartbeatSeconds = 1;
  /// A peer silent this long is lost ($KTUNE_CLUSTER_SILENCE_SECONDS).
  double silenceSeconds = 30;
  /// How long rank 0 waits for the others to join, and they for rank 0
  /// ($KTUNE_CLUSTER_JOIN_SECONDS).
  double joinSeconds = 120;
  /// The options with the environment's overrides.
  static ClusterOptions fromEnvironment();
};

using Log = std::function<void(const std::string &)>;

/// Where rank 0 listens, and the token that admits a rank: rank 0 makes
/// it afresh for each run and the ranks hear it over MPI, so a process that
/// merely reaches the port is not taken for a rank.
struct Invitation {
  std::vector<std::string> addresses; // "ip:port"
  std::string token;
  /// "token@ip:port,ip:port" and back (an error when malformed).
  std::string text() const;
  static Expected<Invitation> parse(const std::string &text);
};

/// A rank lost during the run.
struct LostRank {
  int rank = -1;
  std::string host, reason;
  /// Fell silent rather than closed its connection: it may still run.
  bool silent = false;
};

/// Rank 0's side: listens, admits the other ranks, and lends their GPUs to
/// its DeviceGroup as workers.
class Coordinator {
public:
  static Expected<std::unique_ptr<Coordinator>>
  listen(const ClusterOptions &options, Log log);
  ~Coordinator();

  /// This host's addresses with the listener's port, and the token.
  Invitation invitation() const;
  /// Waits for `ranks` other ranks to join (each sends what its workers
  /// are). A rank whose device, architecture or inputs differ from `self`,
  /// that could not set up its GPUs, or that shares this host's GPUs, is
  /// told why and left out; one that never comes is reported. Returns one
  /// worker per GPU of those admitted.
  Expected<ExtraWorkers> join(int ranks, const HostWorkers &self);
  /// Tells every rank still there that the run is over, and whether all
  /// ranks end MPI together (`together`: none was lost or left out) or each
  /// leaves alone (Open MPI 4.1's MPI_Finalize may wait forever for a dead
  /// rank).
  void finish(bool together = false);
  /// The ranks lost so far.
  std::vector<LostRank> lost() const;

  struct Impl;

private:
  explicit Coordinator(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> I;
};

/// A rank other than 0: joins rank 0 with `workers` (what `workers.self`
/// describes) and evaluates what it is sent until told the run is over;
/// then whether every rank ends MPI together. An error when rank 0 refuses
/// it or is lost.
Expected<bool> serveRank(const Invitation &rankZero, int rank,
                         RankWorkers workers, const ClusterOptions &options,
                         Log log);

/// How the ranks of a run were started (MPI: lib/Cluster/Mpi.cpp).
struct ClusterWorld {
  int rank = 0, size = 1;
  /// Collective: every rank calls it once; each gets rank 0's `text`.
  std::function<Expected<std::string>(const std::string &text)> shareFromRoot;
};

struct ClusterOutcome {
  /// Rank 0's session (absent on the other ranks).
  std::optional<SessionReport> report;
  std::vector<LostRank> lost;
  /// Every rank ends MPI together (MPI_Finalize); otherwise each leaves.
  bool finalizeTogether = false;
};

/// Runs `command` as rank `world.rank` of `world.size`: rank 0 tunes with
/// every rank's GPUs, the others serve it.
Expected<ClusterOutcome> runAcrossHosts(TuneCommand command,
                                        const EvaluatorFactory &makeEvaluator,
                                        const ClusterWorld &world,
                                        const ClusterOptions &options, Log log);

} // namespace ktune::cluster

#endif
