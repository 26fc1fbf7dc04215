// nvcc's host compiler reads GCC's <stdbool.h>, which defines _Bool in C++
// (a GNU extension) in every mode; Clang's does so only without
// __STRICT_ANSI__ (not under -std=c++17). Parsing as nvcc does: C headers
// declaring `extern _Bool flag;` are read as GCC reads them.
#include_next <stdbool.h>
#if defined(__cplusplus) && !defined(_Bool)
#define _Bool bool
#endif
