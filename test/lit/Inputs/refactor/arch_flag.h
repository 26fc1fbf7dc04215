// Written for the arch-divergent-constants test: a flag defined on the
// device side only, in another file than the #if that reads it.
#pragma once
#ifdef __CUDA_ARCH__
#define ON_DEVICE 1
#endif
