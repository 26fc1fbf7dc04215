// Grid helpers as operator libraries write them: one dividing by a default
// argument, one reading the block's constant in its body, one whose
// constant is a later default argument.
#pragma once

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
