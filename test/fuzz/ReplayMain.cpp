//===- ReplayMain.cpp - Runs a fuzz harness on files, without libFuzzer ---===//
//
// fuzz-<name>-replay [--pending] <file or directory>...
//
// Runs LLVMFuzzerTestOneInput once per file (directories: every file in
// them, in name order), each in a child process so one crash names its file
// and the others still run. Exits 1 if any input crashed, failed or took
// longer than a minute (or more than 4 GiB).
//
// --pending: inputs kept for a fix that is not in yet. Each is run and what
// it came to is printed, but nothing is required of it: undefined behaviour
// that the sanitizers of the fuzz build catch may go unnoticed here, and a
// fixed input is moved to regressions/ by hand. Exits 1 only if there is no
// input or one cannot be read.
//
//===----------------------------------------------------------------------===//
#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace fs = std::filesystem;

namespace {

/// What running one input came to: empty when it returned normally.
std::string runOne(const fs::path &file) {
  std::ifstream in(file, std::ios::binary);
  if (!in)
    return "cannot read";
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                          std::istreambuf_iterator<char>());
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0)
    return "cannot fork";
  if (pid == 0) {
    // The limits libFuzzer runs under (scripts/fuzz.sh): a minute, 4 GiB.
    alarm(60);
    rlimit memory{rlim_t(4) << 30, rlim_t(4) << 30};
    setrlimit(RLIMIT_AS, &memory);
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()),
                           bytes.size());
    std::fflush(nullptr);
    _exit(0);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      return "cannot wait";
  if (WIFSIGNALED(status))
    return WTERMSIG(status) == SIGALRM
               ? "took longer than 60 s"
               : std::string("killed by signal ") + strsignal(WTERMSIG(status));
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
    return "exit status " + std::to_string(WEXITSTATUS(status));
  return {};
}

} // namespace

int main(int argc, char **argv) {
  bool pending = false;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--pending") {
      pending = true;
      continue;
    }
    fs::path p(arg);
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<fs::path> inDir;
      for (const auto &e : fs::directory_iterator(p, ec))
        if (e.is_regular_file() &&
            !e.path().filename().string().starts_with("."))
          inDir.push_back(e.path());
      std::sort(inDir.begin(), inDir.end());
      files.insert(files.end(), inDir.begin(), inDir.end());
    } else if (fs::exists(p, ec)) {
      files.push_back(p);
    }
    // A missing directory (no regressions yet) holds nothing to run.
  }
  if (pending) {
    size_t unreadable = 0, passing = 0;
    for (const fs::path &f : files) {
      std::string outcome = runOne(f);
      if (outcome == "cannot read")
        ++unreadable;
      passing += outcome.empty();
      std::fprintf(stderr, "%s: %s\n", f.c_str(),
                   outcome.empty() ? "runs clean here (once fixed, move it "
                                     "to regressions/)"
                                   : ("still fails: " + outcome).c_str());
    }
    std::fprintf(stderr, "%zu pending inputs, %zu run clean here\n",
                 files.size(), passing);
    return files.empty() || unreadable ? 1 : 0;
  }
  size_t bad = 0;
  for (const fs::path &f : files) {
    std::string outcome = runOne(f);
    if (!outcome.empty()) {
      std::fprintf(stderr, "%s: %s\n", f.c_str(), outcome.c_str());
      ++bad;
    }
  }
  std::fprintf(stderr, "%zu inputs, %zu failed\n", files.size(), bad);
  return bad ? 1 : 0;
}
