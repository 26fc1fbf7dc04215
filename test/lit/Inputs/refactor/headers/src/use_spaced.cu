// Calls a header's launchers spelled with nvcc-only launch syntax.
#include "mylib/spaced.cuh"

void run(float *x, int n) {
  mylib::negate(x, n);
  mylib::negate_2d(x, n);
}
