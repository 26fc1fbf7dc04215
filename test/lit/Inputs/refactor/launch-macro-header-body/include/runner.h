#pragma once
struct Runner {
  virtual void run(float *x, int n, void *);
};
