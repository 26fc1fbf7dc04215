// A kernel written against nvcc and its host headers, the way production
// code is: NVRTC cannot compile it (`uint` comes from glibc through nvcc's
// host headers; <iostream>), and it calls a constexpr host function from
// device code, which nvcc allows with --expt-relaxed-constexpr only.
#include <cstdint>
#include <iostream>

namespace hh {

constexpr unsigned stride(unsigned block, unsigned vec) { return block * vec; }

enum class Mode : uint8_t { Copy = 0, Scale = 1 };

template <int BLOCK = 128, int VEC = 1>
__global__ void __launch_bounds__(BLOCK)
    axpy(float *y, const float *x, const uint n, Mode mode, int64_t offset) {
  static_assert(VEC != 3, "VEC = 3 is not a vector width");
  for (uint i = blockIdx.x * stride(BLOCK, VEC) + threadIdx.x;
       i < n && i < (blockIdx.x + 1) * stride(BLOCK, VEC); i += BLOCK)
    y[i] = (mode == Mode::Scale ? 2.0f : 1.0f) * x[i] + float(offset);
}

} // namespace hh

namespace {
template <int BLOCK> __global__ void hidden(float *y) { y[threadIdx.x] = BLOCK; }
} // namespace

void print_usage() { std::cout << "axpy\n"; }
