// A fresh directory per test, removed afterwards.
#ifndef KTUNE_TEST_UNIT_TUNE_TEMPDIR_H
#define KTUNE_TEST_UNIT_TUNE_TEMPDIR_H

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace ktune::testing {

class TempDir {
public:
  TempDir() {
    auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string("ktune-") + info->test_suite_name() + "-" +
                       info->name() + "-" + std::to_string(::getpid());
    Path = std::filesystem::temp_directory_path() / name;
    std::filesystem::remove_all(Path);
    std::filesystem::create_directories(Path);
  }
  ~TempDir() { std::filesystem::remove_all(Path); }
  std::string file(const std::string &name) const {
    return (Path / name).string();
  }

private:
  std::filesystem::path Path;
};

inline std::string slurp(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void spit(const std::string &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

} // namespace ktune::testing

#endif
