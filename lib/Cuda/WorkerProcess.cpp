#include "ktune/Cuda/WorkerProcess.h"
#include "ktune/Support/Try.h"

#include <cstdlib>
#include <filesystem>
#include <unistd.h>

namespace ktune {

namespace fs = std::filesystem;

Expected<std::string> findWorkerExecutable() {
  std::error_code ec;
  if (const char *env = std::getenv("KTUNE_WORKER"); env && *env) {
    if (::access(env, X_OK) == 0)
      return std::string(env);
    return makeError("KTUNE_WORKER names '" + std::string(env) +
                     "', which is not an executable file");
  }
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path beside = self.parent_path() / "ktune-worker";
    if (::access(beside.c_str(), X_OK) == 0)
      return beside.string();
  }
#ifdef KTUNE_WORKER_BUILD_PATH
  if (::access(KTUNE_WORKER_BUILD_PATH, X_OK) == 0)
    return std::string(KTUNE_WORKER_BUILD_PATH);
#endif
  return makeError("cannot find the ktune-worker executable (set KTUNE_WORKER "
                   "or install it beside this program)");
}

Expected<std::unique_ptr<WorkerProcess>>
WorkerProcess::start(const std::string &executable,
                     const std::vector<std::string> &args,
                     const std::string &stderrPath,
                     const std::map<std::string, std::string> &environment) {
  std::vector<std::string> argv = {executable};
  argv.insert(argv.end(), args.begin(), args.end());
  SpawnOptions options;
  // In the tuner's process group, so a Ctrl-C also ends a worker stuck in a
  // kernel.
  options.ownProcessGroup = false;
  options.stderrTo = stderrPath.empty() ? SpawnOptions::Stderr::Inherit
                                        : SpawnOptions::Stderr::File;
  options.stderrFile = stderrPath;
  options.environment = environment; // e.g. KTUNE_DEVICE: the GPU to use
  KTUNE_TRY_ASSIGN(auto child, ChildProcess::spawn(argv, options));
  std::unique_ptr<WorkerProcess> w(new WorkerProcess());
  w->Child.emplace(std::move(child));
  return w;
}

WorkerProcess::~WorkerProcess() { kill(); }

ExitStatus WorkerProcess::finish(const nlohmann::json &message,
                                 double graceSeconds) {
  if (!running())
    return {};
  std::string line = message.dump() + "\n";
  ChildProcess::Exchange x;
  x.input = line;
  x.closeInputAfter = true;
  x.enough = [](const std::string &) { return true; };
  Child->exchange(x, deadlineIn(graceSeconds));
  Buffered.clear();
  return Child->wait(deadlineIn(graceSeconds));
}

void WorkerProcess::kill() {
  if (Child)
    Child->kill();
  Buffered.clear();
}

std::string WorkerProcess::reap(double graceSeconds) {
  if (!running())
    return "not running";
  ExitStatus status = Child->wait(deadlineIn(graceSeconds));
  Buffered.clear();
  std::string s = status.describe();
  if (!status.signal && status.exitCode == 127)
    s += " (it could not start: a missing shared library such as "
         "libcuda.so.1?)";
  return s;
}

WorkerProcess::Outcome WorkerProcess::request(const nlohmann::json &message,
                                              double timeoutSeconds) {
  Outcome out;
  if (!running()) {
    out.kind = Outcome::Kind::Died;
    out.detail = "the worker is not running";
    return out;
  }
  std::string line = message.dump() + "\n";
  ChildProcess::Exchange x;
  x.input = line;
  x.out = std::move(Buffered);
  x.enough = [](const std::string &received) {
    return received.find('\n') != std::string::npos;
  };
  Child->exchange(x, deadlineIn(timeoutSeconds));
  Buffered = std::move(x.out);
  if (x.inputRefused) {
    out.kind = Outcome::Kind::Died;
    out.detail = "the worker " + reap(1.0);
    return out;
  }
  size_t newline = Buffered.find('\n');
  if (newline != std::string::npos) {
    std::string reply = Buffered.substr(0, newline);
    Buffered.erase(0, newline + 1);
    try {
      out.reply = nlohmann::json::parse(reply);
      out.kind = Outcome::Kind::Reply;
      return out;
    } catch (const nlohmann::json::exception &e) {
      // A worker that writes garbage cannot be trusted with more work.
      kill();
      out.kind = Outcome::Kind::Died;
      out.detail = "the worker sent a malformed reply (" +
                   std::string(e.what()) + "): " + reply.substr(0, 200);
      return out;
    }
  }
  if (x.timedOut) {
    kill();
    out.kind = Outcome::Kind::Timeout;
    out.detail = "no reply within " + std::to_string(timeoutSeconds) +
                 " s: the worker was killed";
    return out;
  }
  // Its stdout closed: it ended.
  out.kind = Outcome::Kind::Died;
  out.detail = "the worker " + reap(2.0);
  return out;
}

} // namespace ktune
