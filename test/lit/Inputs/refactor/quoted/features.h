// The project's features, included as "features.h". The C library's
// headers include their own as <features.h>: found here instead (a -I of
// this directory), glibc's macros would be missing and <cstdio> would not
// compile.
#pragma once
#define PROJECT_SCALE 2.0f
