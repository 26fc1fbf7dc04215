// Calls the header's launcher (headers-launcher.test): the launcher's block
// cap is lifted in a copy of the header, and these callers pass it on.
#include <mylib/launch.cuh>

#define DISPATCH_FLOAT(TYPE, ...)                                              \
  [&] {                                                                        \
    using TYPE = float;                                                        \
    return __VA_ARGS__();                                                      \
  }()

cudaError_t fill_ones(float *x, uint32_t n, cudaStream_t stream) {
  return mylib::fill<float>(x, n, stream);
}

cudaError_t fill_dispatched(void *x, uint32_t n, cudaStream_t stream) {
  return DISPATCH_FLOAT(c_type, [&] {
    return mylib::fill(static_cast<c_type *>(x), n, stream);
  });
}
