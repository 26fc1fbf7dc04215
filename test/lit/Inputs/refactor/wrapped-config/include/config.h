// The project's launch configuration, reached only through wrapper.h.
// Each constant has another value in a branch the default build leaves
// inactive (-DUSE_WIDE, or a HIP build).
#pragma once

#ifdef USE_WIDE
constexpr int BLOCK = 512;
#define TILE 16
static const int ITEMS = 8;
#else
constexpr int BLOCK = 256;
#define TILE 32
static const int ITEMS = 4;
#endif

#if defined(__HIP__)
#define ROWS_PER_BLOCK 4
#else
#define ROWS_PER_BLOCK 8
#endif

// Differs between the host and the device side: never lifted.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define MIN_BLOCKS 2
#else
#define MIN_BLOCKS 1
#endif
