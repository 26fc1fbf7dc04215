#include "lib/norm.cuh"

void run(float *x, int n) { scale(x, n, 2.f); }
