#pragma once
struct Runner {
  void run(float *x, int n);
};
