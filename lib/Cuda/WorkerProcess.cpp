#include "ktune/Cuda/WorkerProcess.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <poll.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

namespace ktune {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

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
                     const std::string &stderrPath) {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    return makeError(std::string("socketpair: ") + std::strerror(errno));

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // dup2 clears close-on-exec on the copies; the originals close at exec.
  posix_spawn_file_actions_adddup2(&actions, fds[1], 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  if (!stderrPath.empty())
    posix_spawn_file_actions_addopen(&actions, 2, stderrPath.c_str(),
                                     O_WRONLY | O_CREAT | O_APPEND, 0644);

  std::vector<std::string> argvStore = {executable};
  argvStore.insert(argvStore.end(), args.begin(), args.end());
  std::vector<char *> argv;
  for (auto &a : argvStore)
    argv.push_back(a.data());
  argv.push_back(nullptr);

  pid_t pid = -1;
  int rc = posix_spawn(&pid, executable.c_str(), &actions, nullptr, argv.data(),
                       environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    return makeError("cannot start " + executable + ": " + std::strerror(rc));
  }
  std::unique_ptr<WorkerProcess> w(new WorkerProcess());
  w->Pid = pid;
  w->Fd = fds[0];
  return w;
}

WorkerProcess::~WorkerProcess() { kill(); }

void WorkerProcess::kill() {
  if (Pid > 0) {
    ::kill(Pid, SIGKILL);
    int status = 0;
    while (::waitpid(Pid, &status, 0) < 0 && errno == EINTR) {
    }
    Pid = -1;
  }
  if (Fd >= 0) {
    ::close(Fd);
    Fd = -1;
  }
  Buffered.clear();
}

static std::string describeStatus(int status) {
  if (WIFEXITED(status)) {
    int code = WEXITSTATUS(status);
    std::string s = "exited with status " + std::to_string(code);
    if (code == 127)
      s += " (it could not start: a missing shared library such as "
           "libcuda.so.1?)";
    return s;
  }
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    const char *name = strsignal(sig);
    return "killed by signal " + std::to_string(sig) +
           (name ? std::string(" (") + name + ")" : std::string());
  }
  return "ended (status " + std::to_string(status) + ")";
}

std::string WorkerProcess::reap(double graceSeconds) {
  if (Pid <= 0)
    return "not running";
  auto deadline = Clock::now() + std::chrono::duration<double>(graceSeconds);
  int status = 0;
  for (;;) {
    pid_t r = ::waitpid(Pid, &status, WNOHANG);
    if (r == Pid)
      break;
    if (r < 0 && errno != EINTR) {
      Pid = -1;
      return "lost (waitpid: " + std::string(std::strerror(errno)) + ")";
    }
    if (Clock::now() >= deadline) {
      ::kill(Pid, SIGKILL);
      while (::waitpid(Pid, &status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  Pid = -1;
  if (Fd >= 0) {
    ::close(Fd);
    Fd = -1;
  }
  Buffered.clear();
  return describeStatus(status);
}

WorkerProcess::Outcome WorkerProcess::request(const nlohmann::json &message,
                                              double timeoutSeconds) {
  Outcome out;
  if (Pid <= 0 || Fd < 0) {
    out.kind = Outcome::Kind::Died;
    out.detail = "the worker is not running";
    return out;
  }
  std::string line = message.dump() + "\n";
  size_t sent = 0;
  while (sent < line.size()) {
    ssize_t n = ::send(Fd, line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      out.kind = Outcome::Kind::Died;
      out.detail = "the worker " + reap(1.0);
      return out;
    }
    sent += static_cast<size_t>(n);
  }

  auto deadline = Clock::now() + std::chrono::duration<double>(timeoutSeconds);
  for (;;) {
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
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - Clock::now())
                    .count();
    if (left <= 0) {
      kill();
      out.kind = Outcome::Kind::Timeout;
      out.detail = "no reply within " + std::to_string(timeoutSeconds) +
                   " s: the worker was killed";
      return out;
    }
    pollfd p{Fd, POLLIN, 0};
    int rc = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left, 1000)));
    if (rc < 0 && errno != EINTR) {
      out.kind = Outcome::Kind::Died;
      out.detail = "poll: " + std::string(std::strerror(errno));
      kill();
      return out;
    }
    if (rc <= 0)
      continue;
    char chunk[65536];
    ssize_t n = ::recv(Fd, chunk, sizeof(chunk), 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
      continue;
    if (n <= 0) {
      out.kind = Outcome::Kind::Died;
      out.detail = "the worker " + reap(2.0);
      return out;
    }
    Buffered.append(chunk, static_cast<size_t>(n));
  }
}

} // namespace ktune
