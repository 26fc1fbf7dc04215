// Grid helpers as operator libraries write them: one dividing by a default
// argument, some reading the block's constant in their body, one whose
// constant is a later default argument.
#pragma once

#include <algorithm>

#define THREADS_PER_BLOCK 512
const int NUM_THREADS = 256;
#define WIDE_THREADS 1024

inline int GET_BLOCKS(const int N, const int num_threads = THREADS_PER_BLOCK) {
  int optimal_block_num = (N + num_threads - 1) / num_threads;
  int max_block_num = 4096;
  return optimal_block_num < max_block_num ? optimal_block_num : max_block_num;
}

inline int blocks_for(const int N) {
  return (N + NUM_THREADS - 1) / NUM_THREADS;
}

inline int capped_blocks(const int N, const int cap = 65535,
                         const int threads = WIDE_THREADS) {
  int b = (N + threads - 1) / threads;
  return b < cap ? b : cap;
}

// Read in the body, with a conversion of the argument (long) and a cap.
#define ROW_THREADS 128
inline long row_blocks(long rows) {
  return rows > 0 ? std::min((rows + ROW_THREADS - 1) / ROW_THREADS, 65535L) : 1;
}

// Its argument is read twice: written out, a call would run twice.
const int HALF_THREADS = 64;
inline int half_blocks(const int N) {
  return N < HALF_THREADS ? 1 : (N + HALF_THREADS - 1) / HALF_THREADS;
}

// More than one return: not written out.
const int MANY_THREADS = 96;
inline int warp_blocks(const int N) {
  if (N <= 0)
    return 1;
  return (N + MANY_THREADS - 1) / MANY_THREADS;
}
