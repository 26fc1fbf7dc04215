// Built against the dispatch header ktune wrote for the launcher demo: calls
// ktune_tuned::silu_and_mul as the original launcher is called and checks it
// bit for bit against the template at its defaults (the original constants).
#include "silu_and_mul_launcher.tuned.h"

#include <cstdio>
#include <cstring>
#include <vector>

int main() {
  const int shapes[][2] = {
      {1, 11008}, {4096, 11008}, {16384, 14336}, {100, 14336}};
  int bad = 0;
  for (auto [T, d] : shapes) {
    size_t nIn = size_t(T) * 2 * d, nOut = size_t(T) * d;
    std::vector<__nv_bfloat16> in(nIn);
    unsigned s = 12345;
    for (auto &x : in) {
      s = s * 1664525u + 1013904223u;
      x = __float2bfloat16(float(int(s >> 9) % 2001 - 1000) / 250.0f);
    }
    __nv_bfloat16 *dIn, *a, *b;
    cudaMalloc(&dIn, nIn * 2);
    cudaMalloc(&a, nOut * 2);
    cudaMalloc(&b, nOut * 2);
    cudaMemcpy(dIn, in.data(), nIn * 2, cudaMemcpyHostToDevice);
    cudaMemset(a, 0xff, nOut * 2);
    cudaMemset(b, 0x7f, nOut * 2);
    demo::silu_and_mul<__nv_bfloat16, 1024U>(a, dIn, d, T, 0);
    ktune_tuned::silu_and_mul(b, dIn, d, T, 0);
    if (cudaDeviceSynchronize() != cudaSuccess) {
      std::printf("CUDA error: %s\n", cudaGetErrorString(cudaGetLastError()));
      return 2;
    }
    std::vector<__nv_bfloat16> ha(nOut), hb(nOut);
    cudaMemcpy(ha.data(), a, nOut * 2, cudaMemcpyDeviceToHost);
    cudaMemcpy(hb.data(), b, nOut * 2, cudaMemcpyDeviceToHost);
    bool same = std::memcmp(ha.data(), hb.data(), nOut * 2) == 0;
    std::printf("app: T=%d d=%d tuned launcher %s the original\n", T, d,
                same ? "matches" : "DIFFERS from");
    bad += !same;
    cudaFree(dIn);
    cudaFree(a);
    cudaFree(b);
  }
  return bad ? 1 : 0;
}
