/* A C header of the project: C99's _Bool, which GCC's <stdbool.h> also
   defines in C++. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

extern _Bool pool_verbose;

/* A host function named like one of Clang's builtins (GCC has it only in
   <x86intrin.h>). */
static inline uint64_t __rdtsc() { return 0; }
