//===- ktune/Cluster/Mpi.h - Ranks started by mpirun ------------*- C++ -*-===//
//
// MPI starts the ranks of a run across hosts and tells them where rank 0
// listens (one broadcast); nothing else goes over MPI. Built without MPI
// (KTUNE_ENABLE_MPI=OFF, or no MPI found), a program started by an MPI
// launcher with several ranks is told so rather than tuning alone on each.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_CLUSTER_MPI_H
#define KTUNE_CLUSTER_MPI_H

#include "ktune/Cluster/Cluster.h"

#include <optional>
#include <string>

namespace ktune::cluster {

/// True when this build can run across hosts.
bool mpiBuiltIn();

/// When an MPI launcher started this process with more than one rank: MPI
/// set up and the world; otherwise nullopt (and MPI left alone).
Expected<std::optional<ClusterWorld>> startMpi(int &argc, char **&argv);

enum class MpiEnd {
  Finalize, // with every other rank
  Leave,    // without waiting for the others (some rank failed or was lost)
};
/// Ends MPI (nothing when it was not started).
void finishMpi(MpiEnd how);

/// A warning for rank 0 when a rank that dies would end the whole job
/// (Open MPI's mpirun without --enable-recovery); empty otherwise.
std::string mpiRecoveryWarning();

/// Tunes `command` as rank `world.rank` of a run started by an MPI
/// launcher: rank 0 tunes with every rank's GPUs and returns its report
/// (`end`: how it ends MPI once it has written its outputs); the other
/// ranks serve rank 0, end MPI and exit the process (status 1, after
/// "`tool`: rank N: error: ..." on stderr, when they fail). `log` gets
/// progress lines and rank 0's warnings.
Expected<SessionReport> tuneAsRank(const TuneCommand &command,
                                   const EvaluatorFactory &makeEvaluator,
                                   const ClusterWorld &world, Log log,
                                   MpiEnd &end, const std::string &tool);

} // namespace ktune::cluster

#endif
