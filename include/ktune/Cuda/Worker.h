//===- ktune/Cuda/Worker.h - The worker process's entry point ---*- C++ -*-===//
//
// ktune-worker owns the CUDA context: the tuner starts it, sends it JSON
// requests (WorkerProtocol.h) and kills it when a kernel hangs. Its main
// only calls runWorkerMain.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_CUDA_WORKER_H
#define KTUNE_CUDA_WORKER_H

namespace ktune {

/// Serves requests on stdin, replies on stdout (anything else the process
/// prints goes to stderr). Returns the exit code.
int runWorkerMain(int argc, char **argv);

} // namespace ktune

#endif
