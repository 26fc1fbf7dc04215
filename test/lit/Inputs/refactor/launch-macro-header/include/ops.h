#pragma once
namespace ops {
void scale(float *x, int n, float a);
void shift(float *x, int n, float b);
void count(const float *x, int n, int *hits);
void logged(float *x, int n);
} // namespace ops
