#ifndef KTUNE_TEST_UNIT_TUNE_SHAREDDATA_H
#define KTUNE_TEST_UNIT_TUNE_SHAREDDATA_H

#include <filesystem>

/// The recorded tuning spaces come from outside the repository
/// (KTUNE_SHARED_DATA_DIR); tests that replay them skip where it is absent.
#define KTUNE_SKIP_WITHOUT_DATA(path)                                          \
  if (!std::filesystem::exists(path))                                          \
  GTEST_SKIP() << "recorded data not found: " << (path)                        \
               << " (configure with -DKTUNE_SHARED_DATA_DIR=...)"

#endif
