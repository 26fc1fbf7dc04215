// A template whose default configuration does not compile (written for the
// test): every other block size does, but the default is the reference, so
// nothing may be tuned and no header written.
template <int BLOCK = 256>
__global__ void copy_block(float *out, const float *in, int n) {
  static_assert(BLOCK != 256, "this test's default block does not compile");
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}
