#ifndef KTUNE_TEST_UNIT_TUNE_TESTDATA_H
#define KTUNE_TEST_UNIT_TUNE_TESTDATA_H

#include <filesystem>
#include <string>

/// The recorded tuning spaces the tests replay (test/data/t4/convolution).
inline std::string convolutionSpaces() {
  return std::string(KTUNE_TEST_DATA_DIR) + "/t4/convolution/";
}

/// The data ships with the repository: a missing file is a broken checkout,
/// so the test fails instead of skipping.
#define KTUNE_REQUIRE_DATA(path)                                               \
  ASSERT_TRUE(std::filesystem::exists(path))                                   \
      << "recorded data not found: " << (path)                                 \
      << " (it belongs to the repository's test/data)"

#endif
