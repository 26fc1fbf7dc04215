// A benchmark driver: a function template builds the engine for the
// model's sizes and calls its members; main instantiates it.
#include "infer.cuh"

template <typename T, int R> void runTest(T *state, const float *src, int n) {
  Infer<T, R> infer(state, n);
  infer.setInputs(src);
  Infer<T, R> *again = &infer;
  again->reset();
}

int main() {
  runTest<half, 64>(nullptr, nullptr, 0);
  runTest<float, 32>(nullptr, nullptr, 0);
  return 0;
}
