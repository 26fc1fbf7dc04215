// planted_faults.tpl.cu - a kernel whose FAULT parameter plants one known
// fault per value, for testing that a tuner catches and survives each kind
// (device code only; compiles with NVRTC).
//
//   y[i] = 2 * x[i] + 1   for i < n      (FAULT == 0: correct)
//
// Layout: x, y [n] float. Launch (see planted_faults.tpl.json): grid =
// ceil_div(n, BLOCK_SIZE), block = BLOCK_SIZE.
// FAULT values:
//   0  none
//   1  wrong result: every output is off by +0.5
//   2  unwritten outputs: odd indices are never stored
//   3  NaN: every 1024th output (i % 1024 == 7) is NaN
//   4  illegal address: thread 0 of every block stores through a wild
//      pointer (address 0x10, never mapped), a sticky launch failure
//   5  hang: every thread spins on shared memory nothing ever changes; only
//      a watchdog ends it
//   6  off-by-one: also stores y[n], one element past the end (silent unless
//      a guard region or a sanitizer looks)
// Every FAULT value compiles for every BLOCK_SIZE.

namespace ktune_test {

template <int BLOCK_SIZE = 256, int FAULT = 0>
__global__ void __launch_bounds__(BLOCK_SIZE)
    planted_faults_kernel(float *__restrict__ y, const float *__restrict__ x,
                          const int n) {
  const int i = blockIdx.x * BLOCK_SIZE + threadIdx.x;

  if (FAULT == 5) {
    __shared__ volatile int release;
    if (threadIdx.x == 0)
      release = 0;
    __syncthreads();
    while (release == 0)
      __nanosleep(1000);
  }
  if (FAULT == 4 && threadIdx.x == 0)
    *reinterpret_cast<volatile float *>(0x10ull) = 1.0f;

  if (i >= n)
    return;
  float v = 2.0f * x[i] + 1.0f;
  if (FAULT == 1)
    v += 0.5f;
  if (FAULT == 2 && (i & 1))
    return;
  if (FAULT == 3 && i % 1024 == 7)
    v = __int_as_float(0x7fc00000);
  y[i] = v;
  if (FAULT == 6 && i == n - 1)
    y[n] = v;
}

} // namespace ktune_test
