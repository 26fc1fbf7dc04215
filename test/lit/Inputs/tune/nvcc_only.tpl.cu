// A template written against nvcc and its host headers (for the test), the
// way production code is: NVRTC cannot compile it (<iostream>; `uint` comes
// from glibc through nvcc's host headers), and it calls a constexpr host
// function from device code, which nvcc allows with the project's
// --expt-relaxed-constexpr only. Its scalar arguments are a typedef, an
// int64_t and an enum: the spec spells none of their types.
#include <cstdint>
#include <iostream>

namespace nv {

constexpr unsigned span(unsigned block, unsigned vec) { return block * vec; }

enum class Mode : uint8_t { Copy = 0, Scale = 1 };

template <int BLOCK = 128, int VEC = 1>
__global__ void __launch_bounds__(BLOCK)
    axpy(float *y, const float *x, const uint n, Mode mode, int64_t offset) {
  static_assert(VEC != 3, "VEC = 3 is not a vector width");
  for (uint i = blockIdx.x * span(BLOCK, VEC) + threadIdx.x;
       i < n && i < (blockIdx.x + 1) * span(BLOCK, VEC); i += BLOCK)
    y[i] = (mode == Mode::Scale ? 2.0f : 1.0f) * x[i] + float(offset);
}

inline void describe() { std::cout << "nv::axpy\n"; }

} // namespace nv
