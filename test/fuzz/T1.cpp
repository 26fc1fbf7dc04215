//===- T1.cpp - Fuzzes reading a T1 file (ktune-tune --space) -------------===//
#include "ktune/Tune/T1.h"
#include "FuzzSupport.h"
#include "ktune/Tune/SearchSpace.h"

#include <random>

using namespace ktune;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto t1 = fuzz::read(data, size, t1FromJson);
  if (!t1)
    return 0;
  auto space = t1->searchSpace();
  if (!space)
    return 0;
  fuzz::use(space->validCount(uint64_t(1) << 12));
  fuzz::use(space->defaultPoint());
  std::mt19937_64 rng(size);
  if (auto p = space->randomValid(rng)) {
    fuzz::use(space->toConfig(*p));
    fuzz::use(space->neighbours(*p));
  }
  return 0;
}
