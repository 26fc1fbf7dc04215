// An application of the generated silu_and_mul dispatch header: for tuned
// and untuned shapes, the tuned and general launchers must produce exactly
// what the default instantiation produces (the operation is elementwise, so
// every configuration computes the same bits).
#include "silu_and_mul.tuned.h"

#include <cstdio>
#include <cstring>
#include <vector>

namespace {

bool check(cudaError_t e, const char *what) {
  if (e != cudaSuccess)
    std::printf("FAIL: %s: %s\n", what, cudaGetErrorString(e));
  return e == cudaSuccess;
}

} // namespace

int main() {
  const int shapes[][2] = {{16, 4096},  {4096, 4096}, {3, 4096}, {700, 4096},
                           {16, 11008}, {5000, 2048}, {1, 8}};
  for (const auto &shape : shapes) {
    const int tokens = shape[0], d = shape[1];
    const size_t inCount = size_t(tokens) * 2 * d,
                 outCount = size_t(tokens) * d;
    std::vector<__nv_bfloat16> host(inCount);
    for (size_t i = 0; i < inCount; ++i)
      host[i] =
          __float2bfloat16(float((i * 2654435761u) % 2001) / 250.0f - 4.0f);
    __nv_bfloat16 *in = nullptr, *ref = nullptr, *tuned = nullptr,
                  *general = nullptr;
    if (!check(cudaMalloc(&in, inCount * 2), "malloc") ||
        !check(cudaMalloc(&ref, outCount * 2), "malloc") ||
        !check(cudaMalloc(&tuned, outCount * 2), "malloc") ||
        !check(cudaMalloc(&general, outCount * 2), "malloc"))
      return 1;
    cudaMemcpy(in, host.data(), inCount * 2, cudaMemcpyHostToDevice);
    cudaMemset(tuned, 0xff, outCount * 2);
    cudaMemset(general, 0xff, outCount * 2);
    constexpr auto D = silu_and_mul_kernel_default_config;
    if (!check(ktune_silu_and_mul_kernel_detail::launch<D.BLOCK_SIZE, D.VEC,
                                                        D.UNROLL>(ref, in, d,
                                                                  tokens, 0),
               "default launch") ||
        !check(launch_silu_and_mul_kernel_tuned(tuned, in, d, tokens),
               "tuned launch") ||
        !check(launch_silu_and_mul_kernel_general(general, in, d, tokens),
               "general launch") ||
        !check(cudaDeviceSynchronize(), "run"))
      return 1;
    std::vector<__nv_bfloat16> a(outCount), b(outCount), c(outCount);
    cudaMemcpy(a.data(), ref, outCount * 2, cudaMemcpyDeviceToHost);
    cudaMemcpy(b.data(), tuned, outCount * 2, cudaMemcpyDeviceToHost);
    cudaMemcpy(c.data(), general, outCount * 2, cudaMemcpyDeviceToHost);
    if (std::memcmp(a.data(), b.data(), outCount * 2) != 0 ||
        std::memcmp(a.data(), c.data(), outCount * 2) != 0) {
      std::printf("FAIL: tokens=%d d=%d differs from the default\n", tokens, d);
      return 1;
    }
    std::printf("tokens=%d d=%d: tuned and general match the default\n", tokens,
                d);
    cudaFree(in);
    cudaFree(ref);
    cudaFree(tuned);
    cudaFree(general);
  }
  std::printf("all match\n");
  return 0;
}
