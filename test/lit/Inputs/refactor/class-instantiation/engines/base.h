#pragma once
struct Hash {};
struct Plain {};

template <class T, class I> class EngineBase {
public:
  virtual ~EngineBase() {}
  virtual void Integrate(T *data, int n) = 0;
};
