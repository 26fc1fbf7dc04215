#pragma once
#include "base.h"

// The primary template is only declared: the partial specialisation is the
// class other files use.
template <class T, class I> class Engine;

template <class T> class Engine<T, Hash> : public EngineBase<T, Hash> {
public:
  Engine();
  void Integrate(T *data, int n);
  virtual int Count(T *data, int n);
};

template <class T> class Unused {
public:
  void Run(T *data, int n);
};
