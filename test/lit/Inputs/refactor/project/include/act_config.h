// Configuration header found only through -I.
#pragma once
#ifndef ACT_THREADS
#error "ACT_THREADS must be defined on the command line"
#endif
constexpr int kActThreads = ACT_THREADS;
