#include "ktune/Support/DataPath.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace ktune {

namespace fs = std::filesystem;

std::vector<std::string> dataDirectories() {
  std::vector<std::string> dirs;
  if (const char *env = std::getenv("KTUNE_DATA_DIR"); env && *env)
    dirs.push_back(env);
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path bin = exe.parent_path();
    dirs.push_back((bin.parent_path() / "share" / "ktune").string());
    // A build directory inside the source tree: <src>/build/bin/tool.
    dirs.push_back(bin.parent_path().parent_path().string());
  }
#ifdef KTUNE_SOURCE_DIR
  dirs.push_back(KTUNE_SOURCE_DIR);
#endif
  return dirs;
}

Expected<std::string> findDataFile(const std::string &relative) {
  std::string looked;
  for (const auto &dir : dataDirectories()) {
    fs::path candidate = fs::path(dir) / relative;
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec))
      return candidate.string();
    looked += (looked.empty() ? "" : ", ") + dir;
  }
  return makeError("data file not found (looked in " + looked +
                       "; set KTUNE_DATA_DIR to the directory holding it)",
                   relative);
}

} // namespace ktune
