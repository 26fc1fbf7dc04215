//===- ktune-worker - Runs kernels for the tuner in its own process -------===//
#include "ktune/Cuda/Worker.h"

int main(int argc, char **argv) { return ktune::runWorkerMain(argc, argv); }
