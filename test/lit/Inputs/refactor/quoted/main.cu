// Includes a header beside it (its kernel is rewritten) and the C library,
// whose headers include <features.h>: the project's own features.h, beside
// this file, must not be read for it.
#include <cstdio>
#include "scale.cuh"

void launch_scale(float *x, int n) { scale<<<(n + 127) / 128, 128>>>(x, n); }
