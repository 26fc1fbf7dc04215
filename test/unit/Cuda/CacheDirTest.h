//===- CacheDirTest.h - A test fixture with a compile cache -----*- C++ -*-===//
//
// Tests that compile kernels keep their cache in a folder of their own, so
// that no test reads what another compiled; the folder goes afterwards.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_TEST_UNIT_CUDA_CACHEDIRTEST_H
#define KTUNE_TEST_UNIT_CUDA_CACHEDIRTEST_H

#include "CudaTestUtil.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace ktune::test {

class CacheDirTest : public ::testing::Test {
protected:
  void SetUp() override { Cache = freshDir("ktune-test-cache"); }
  void TearDown() override {
    if (!Cache.empty())
      std::filesystem::remove_all(Cache);
  }
  std::string Cache;
};

} // namespace ktune::test

#endif
