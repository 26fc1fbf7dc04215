//===- CudaCheck.h - Driver API results as worker errors --------*- C++ -*-===//
//
// Every driver call in the worker goes through KTUNE_CU: a failure becomes a
// WorkerError naming the call and the CUDA error; `fatal` says whether the
// context can still be used (an illegal address or a trap poisons it: the
// worker must then exit and the tuner start a fresh one).
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_LIB_CUDA_WORKER_CUDACHECK_H
#define KTUNE_LIB_CUDA_WORKER_CUDACHECK_H

#include <cuda.h>

#include <expected>
#include <string>

namespace ktune::worker {

struct WorkerError {
  std::string message;
  bool fatal = false;
};

template <class T> using WExpected = std::expected<T, WorkerError>;
using WStatus = std::expected<void, WorkerError>;

std::string cuErrorText(CUresult r);

/// Builds the error for a failed call; decides whether it is fatal.
std::unexpected<WorkerError> cuFailure(CUresult r, const char *call);

inline std::unexpected<WorkerError> workerError(std::string message,
                                                bool fatal = false) {
  return std::unexpected<WorkerError>(WorkerError{std::move(message), fatal});
}

} // namespace ktune::worker

#define KTUNE_CU(call)                                                         \
  do {                                                                         \
    CUresult ktuneCuResult = (call);                                           \
    if (ktuneCuResult != CUDA_SUCCESS)                                         \
      return ::ktune::worker::cuFailure(ktuneCuResult, #call);                 \
  } while (false)

#define KTUNE_WTRY(expr)                                                       \
  do {                                                                         \
    auto ktuneWTry = (expr);                                                   \
    if (!ktuneWTry)                                                            \
      return std::unexpected(ktuneWTry.error());                               \
  } while (false)

#endif
