// Written for the test: the library's one translation unit, which includes
// its kernel files and instantiates their host templates explicitly.
#include "ops/pooling.cu"

template void pool_forward<float>(float *out, const float *in, int rows,
                                  int planes);
template void pool_forward<double>(double *out, const double *in, int rows,
                                   int planes);
