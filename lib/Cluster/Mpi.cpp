//===- Mpi.cpp - Ranks started by mpirun ----------------------------------===//
#include "ktune/Cluster/Mpi.h"

#ifdef KTUNE_HAVE_MPI
#include <mpi.h>
#endif

#include <cstdlib>
#include <cstring>

namespace ktune::cluster {

namespace {

/// The rank count an MPI launcher gave this process: 0 when none started
/// it, -1 when one did without saying how many.
int launchedSize() {
  for (const char *name :
       {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MV2_COMM_WORLD_SIZE"})
    if (const char *text = std::getenv(name); text && *text)
      return std::atoi(text);
  return std::getenv("PMIX_RANK") ? -1 : 0;
}

} // namespace

bool mpiBuiltIn() {
#ifdef KTUNE_HAVE_MPI
  return true;
#else
  return false;
#endif
}

Expected<std::optional<ClusterWorld>> startMpi(int &argc, char **&argv) {
  int size = launchedSize();
  if (size == 0 || size == 1)
    return std::nullopt;
#ifndef KTUNE_HAVE_MPI
  (void)argc;
  (void)argv;
  return makeError(
      "started by an MPI launcher with " +
      (size > 0 ? std::to_string(size) : std::string("several")) +
      " ranks, but this build has no MPI (KTUNE_ENABLE_MPI, Open MPI "
      "installed: libopenmpi-dev): each rank would tune alone");
#else
  int provided = 0;
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) !=
      MPI_SUCCESS)
    return makeError("MPI_Init failed");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  ClusterWorld world;
  MPI_Comm_rank(MPI_COMM_WORLD, &world.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world.size);
  if (world.size == 1) {
    MPI_Finalize();
    return std::nullopt;
  }
  world.shareFromRoot = [](const std::string &text) -> Expected<std::string> {
    unsigned long long size = text.size();
    if (MPI_Bcast(&size, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD) !=
            MPI_SUCCESS ||
        size > (1u << 20))
      return makeError("MPI_Bcast failed");
    std::string out = text;
    out.resize(size);
    if (size > 0 && MPI_Bcast(out.data(), static_cast<int>(size), MPI_CHAR, 0,
                              MPI_COMM_WORLD) != MPI_SUCCESS)
      return makeError("MPI_Bcast failed");
    return out;
  };
  return world;
#endif
}

void finishMpi(MpiEnd how) {
#ifdef KTUNE_HAVE_MPI
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized)
    return;
  if (how == MpiEnd::Finalize)
    MPI_Finalize();
#else
  (void)how;
#endif
}

std::string mpiRecoveryWarning() {
  // Open MPI 4's mpirun hands its parameters to the ranks; 5's does not
  // (docs/multi-gpu.md has its option).
  if (!std::getenv("OMPI_MCA_orte_hnp_uri"))
    return "";
  const char *recovery = std::getenv("OMPI_MCA_orte_enable_recovery");
  if (recovery &&
      (std::strcmp(recovery, "1") == 0 || std::strcmp(recovery, "true") == 0))
    return "";
  return "mpirun without --enable-recovery: a rank that dies ends the whole "
         "job (the journal keeps every evaluation finished; run again to "
         "resume)";
}

} // namespace ktune::cluster
