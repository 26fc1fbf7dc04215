// Decode-size probe: SGLang's silu_and_mul kernel (FlashInfer's
// act_and_mul_kernel, included from REALCODE's FlashInfer headers, not
// copied) against minimal kernels of ours and torch.compile, to say where
// torch.compile's edge at 1-64 tokens comes from. bench/realcode/probe/README.md.
#include <cuda_bf16.h>
#include <cstdint>
#include <flashinfer/activation.cuh>
using bf = __nv_bfloat16;
__device__ __forceinline__ float silu_f(const float &x) { return x / (1.0f + expf(-x)); }

__device__ __forceinline__ void act8(const uint4 &xr, const uint4 &yr, uint4 &o) {
  const bf *x = reinterpret_cast<const bf *>(&xr), *y = reinterpret_cast<const bf *>(&yr);
  bf *r = reinterpret_cast<bf *>(&o);
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    float a = __bfloat162float(x[i]);
    r[i] = __float2bfloat16(silu_f(a) * __bfloat162float(y[i]));
  }
}

// torch.compile's shape: one flat index over every vector of the output.
template <int BS, int MODE>
__global__ void flat(bf *__restrict__ out, const bf *__restrict__ in, int d, int total) {
  int v = blockIdx.x * BS + threadIdx.x;
  if (v < total) {
    int vpr = d / 8, row = v / vpr, col = (v - row * vpr) * 8;
    uint4 xr = *reinterpret_cast<const uint4 *>(in + (size_t)row * 2 * d + col);
    uint4 yr = *reinterpret_cast<const uint4 *>(in + (size_t)row * 2 * d + d + col);
    uint4 o;
    act8(xr, yr, o);
    *reinterpret_cast<uint4 *>(out + (size_t)row * d + col) = o;
  }
  if (MODE == 1) { // FlashInfer's 64-bit remainder, computed after the store
    int64_t stride = blockDim.x;
    int64_t rem = d % (stride * 8);
    if (rem == 7777777) out[0] = bf(0.f);
  }
}

// The same with the row length a compile-time constant (torch.compile
// specialises on the shape).
template <int BS, int D>
__global__ void flatd(bf *__restrict__ out, const bf *__restrict__ in, int total) {
  int v = blockIdx.x * BS + threadIdx.x;
  if (v < total) {
    constexpr int vpr = D / 8;
    int row = v / vpr, col = (v - row * vpr) * 8;
    uint4 xr = *reinterpret_cast<const uint4 *>(in + row * 2 * D + col);
    uint4 yr = *reinterpret_cast<const uint4 *>(in + row * 2 * D + D + col);
    uint4 o;
    act8(xr, yr, o);
    *reinterpret_cast<uint4 *>(out + row * D + col) = o;
  }
}


extern "C" int probe_launch(int kind, int bs, int s, void *out, void *in, int d, int tokens, void *stream) {
  bf *o = static_cast<bf *>(out);
  const bf *i = static_cast<const bf *>(in);
  cudaStream_t st = static_cast<cudaStream_t>(stream);
  if (kind == 4) {
    int total = tokens * (d / 8), grid = (total + bs - 1) / bs;
#define G(B, DD) if (bs == B && d == DD) flatd<B, DD><<<grid, B, 0, st>>>(o, i, total);
    G(64, 11008) G(128, 11008) G(256, 11008) G(64, 14336) G(128, 14336) G(256, 14336) G(64, 4096) G(128, 4096) G(256, 4096)
#undef G
    return int(cudaGetLastError());
  }
  if (kind >= 2) { // flat, MODE = kind - 2
    int total = tokens * (d / 8), grid = (total + bs - 1) / bs;
#define F(B) if (bs == B) { if (kind == 2) flat<B, 0><<<grid, B, 0, st>>>(o, i, d, total); else flat<B, 1><<<grid, B, 0, st>>>(o, i, d, total); }
    F(32) F(64) F(128) F(256) F(512) F(1024)
#undef F
  } else { // FlashInfer's kernel as SGLang launches it: a block per row
    flashinfer::activation::act_and_mul_kernel<bf, silu_f><<<tokens, bs, 0, st>>>(o, i, d);
  }
  return int(cudaGetLastError());
}
