#include "CudaCheck.h"

namespace ktune::worker {

std::string cuErrorText(CUresult r) {
  const char *name = nullptr, *text = nullptr;
  cuGetErrorName(r, &name);
  cuGetErrorString(r, &text);
  std::string out = name ? name : ("CUDA error " + std::to_string(int(r)));
  if (text)
    out += std::string(" (") + text + ")";
  return out;
}

static bool breaksContext(CUresult r) {
  switch (r) {
  case CUDA_ERROR_ILLEGAL_ADDRESS:
  case CUDA_ERROR_LAUNCH_FAILED:
  case CUDA_ERROR_MISALIGNED_ADDRESS:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
  case CUDA_ERROR_INVALID_ADDRESS_SPACE:
  case CUDA_ERROR_INVALID_PC:
  case CUDA_ERROR_HARDWARE_STACK_ERROR:
  case CUDA_ERROR_ASSERT:
  case CUDA_ERROR_LAUNCH_TIMEOUT:
  case CUDA_ERROR_ECC_UNCORRECTABLE:
  case CUDA_ERROR_CONTEXT_IS_DESTROYED:
  case CUDA_ERROR_DEINITIALIZED:
  case CUDA_ERROR_UNKNOWN:
    return true;
  default:
    return false;
  }
}

std::unexpected<WorkerError> cuFailure(CUresult r, const char *call) {
  bool fatal = breaksContext(r);
  if (!fatal) {
    // An error not known to be sticky may still have left the context
    // unusable: ask it. (Never called while a stream is capturing: graph
    // capture handles its own errors.)
    CUresult sync = cuCtxSynchronize();
    fatal = sync != CUDA_SUCCESS && breaksContext(sync);
  }
  std::string message = cuErrorText(r) + " in " + call;
  return std::unexpected<WorkerError>(WorkerError{std::move(message), fatal});
}

} // namespace ktune::worker
