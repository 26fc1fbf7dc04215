// Calls a header library's entry points, which reach their launchers through
// other functions of the header.
#include "mylib/entry.cuh"

void run(const float *x, float *y, int n) {
  mylib::axpy(2.0f, x, y, n);
  mylib::axpy_wide(0.5f, x, y, n);
}
