// Calls a header's launcher template from a template of its own: the call's
// arguments are dependent, so the callee is known by name only until the
// template is instantiated.
#include "mylib/launch.cuh"

template <typename T> cudaError_t fill_all(T *x, uint32_t n) {
  return mylib::fill(x, n, 0);
}

template cudaError_t fill_all<float>(float *, uint32_t);
