// A class template declared here, its members defined in src/pool.cu and
// instantiated there for the other files that include this header.
#pragma once

#include "flags.h"

extern "C" __host__ __device__ void __assertfail(const char *assertion,
                                                 const char *file,
                                                 unsigned int line,
                                                 const char *function,
                                                 unsigned long charsize);

template <typename T> struct Storage {
  template <typename U> using rebind = Storage<U>;
  T *data;
};

template <typename T> class Pool {
public:
  void fill(T *x, int n, T value);
  void scale(T *x, int n, T factor);
};

// A default argument given where a member of a partial specialisation is
// defined out of its class (nvcc takes it).
template <typename T, int Kind> struct Table;
template <typename T> struct Table<T, 0> {
  double load(int flag);
};
template <typename T> double Table<T, 0>::load(int flag = 0) { return flag; }
