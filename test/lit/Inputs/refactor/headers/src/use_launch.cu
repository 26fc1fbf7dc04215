// Calls the header's launcher (headers-launcher.test): the launcher's block
// cap is lifted in a copy of the header.
#include <mylib/launch.cuh>

cudaError_t fill_ones(float *x, uint32_t n, cudaStream_t stream) {
  return mylib::fill<float>(x, n, stream);
}
