// Uses the generated dispatch header the way an application would.
#include "rmsnorm.tuned.h"

cudaError_t normalize(__nv_bfloat16 *out, const __nv_bfloat16 *in,
                      int64_t tokens, int hidden, cudaStream_t stream) {
  static_assert(rmsnorm_default_config.BLOCK_SIZE == 256, "default kept");
  static_assert(rmsnorm_general_config.VEC == 8, "general configuration");
  if (cudaError_t e =
          launch_rmsnorm_tuned(out, in, hidden, 1e-6f, tokens, stream))
    return e;
  return launch_rmsnorm_general(out, in, hidden, 1e-6f, tokens, stream);
}
