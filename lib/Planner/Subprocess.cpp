//===- Subprocess.cpp - Running a planner command with a deadline ---------===//
#include "Subprocess.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char **environ;

namespace ktune::planner {

namespace {

struct Pipe {
  int fd[2] = {-1, -1};
  ~Pipe() { closeBoth(); }
  void closeEnd(int i) {
    if (fd[i] >= 0)
      ::close(fd[i]);
    fd[i] = -1;
  }
  void closeBoth() {
    closeEnd(0);
    closeEnd(1);
  }
};

std::string errnoText(const char *what) {
  return std::string(what) + ": " + std::strerror(errno);
}

/// Blocks SIGPIPE in this thread while writing to a child that may have
/// closed its stdin, so the write fails with EPIPE instead of killing us.
class SigpipeGuard {
public:
  SigpipeGuard() {
    sigemptyset(&Pipe);
    sigaddset(&Pipe, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    WasPending = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &Pipe, &Old);
  }
  ~SigpipeGuard() {
    if (!WasPending) {
      timespec zero{0, 0};
      while (sigtimedwait(&Pipe, nullptr, &zero) > 0) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &Old, nullptr);
  }

private:
  sigset_t Pipe, Old;
  bool WasPending = false;
};

} // namespace

Expected<ProcessResult> runShellCommand(const std::string &commandLine,
                                        const std::string &input,
                                        const ProcessOptions &options) {
  using Clock = std::chrono::steady_clock;
  Pipe in, out, err;
  if (::pipe2(in.fd, O_CLOEXEC) != 0 || ::pipe2(out.fd, O_CLOEXEC) != 0 ||
      ::pipe2(err.fd, O_CLOEXEC) != 0)
    return makeError(errnoText("cannot create pipes"));

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in.fd[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out.fd[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err.fd[1], 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Its own process group, so a timeout kills the helpers it started too;
  // default signal handling, whatever this process ignores.
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t defaults, empty;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  sigemptyset(&empty);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setsigmask(&attr, &empty);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP |
                                      POSIX_SPAWN_SETSIGDEF |
                                      POSIX_SPAWN_SETSIGMASK);

  std::vector<std::string> envStrings;
  for (char **e = environ; e && *e; ++e) {
    std::string entry = *e;
    std::string name = entry.substr(0, entry.find('='));
    if (!options.environment.count(name))
      envStrings.push_back(std::move(entry));
  }
  for (const auto &[name, value] : options.environment)
    envStrings.push_back(name + "=" + value);
  std::vector<char *> envp;
  for (auto &s : envStrings)
    envp.push_back(s.data());
  envp.push_back(nullptr);

  std::string shell = "/bin/sh", dashC = "-c", cmd = commandLine;
  char *argv[] = {shell.data(), dashC.data(), cmd.data(), nullptr};
  auto start = Clock::now();
  pid_t pid = -1;
  int rc = posix_spawn(&pid, "/bin/sh", &actions, &attr, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0)
    return makeError(std::string("cannot start /bin/sh: ") + std::strerror(rc));
  in.closeEnd(0);
  out.closeEnd(1);
  err.closeEnd(1);
  for (int fd : {in.fd[1], out.fd[0], err.fd[0]})
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);

  ProcessResult result;
  auto deadline =
      start + std::chrono::duration_cast<Clock::duration>(
                  std::chrono::duration<double>(options.timeoutSeconds));
  size_t written = 0;
  if (input.empty())
    in.closeEnd(1);
  {
    SigpipeGuard guard;
    char buffer[1 << 16];
    while (out.fd[0] >= 0 || err.fd[0] >= 0) {
      auto now = Clock::now();
      if (now >= deadline) {
        result.timedOut = true;
        break;
      }
      std::vector<pollfd> fds;
      if (in.fd[1] >= 0)
        fds.push_back({in.fd[1], POLLOUT, 0});
      if (out.fd[0] >= 0)
        fds.push_back({out.fd[0], POLLIN, 0});
      if (err.fd[0] >= 0)
        fds.push_back({err.fd[0], POLLIN, 0});
      int waitMs = static_cast<int>(
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now)
              .count() +
          1);
      int n = ::poll(fds.data(), fds.size(), waitMs);
      if (n < 0) {
        if (errno == EINTR)
          continue;
        break;
      }
      for (const pollfd &p : fds) {
        if (!p.revents)
          continue;
        if (p.fd == in.fd[1]) {
          ssize_t w =
              ::write(p.fd, input.data() + written, input.size() - written);
          if (w > 0)
            written += static_cast<size_t>(w);
          if ((w < 0 && errno != EAGAIN && errno != EINTR) ||
              written == input.size() || (p.revents & (POLLERR | POLLHUP)))
            in.closeEnd(1); // done, or the command stopped reading
          continue;
        }
        bool isOut = p.fd == out.fd[0];
        ssize_t r = ::read(p.fd, buffer, sizeof buffer);
        if (r > 0) {
          std::string &dest = isOut ? result.out : result.err;
          size_t room = options.maxOutputBytes > dest.size()
                            ? options.maxOutputBytes - dest.size()
                            : 0;
          if (static_cast<size_t>(r) > room && isOut)
            result.outputTruncated = true;
          dest.append(buffer, std::min(room, static_cast<size_t>(r)));
        } else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
          (isOut ? out : err).closeEnd(0);
        }
      }
    }
    in.closeEnd(1);
  }

  int status = 0;
  if (result.timedOut) {
    ::kill(-pid, SIGKILL);
    ::waitpid(pid, &status, 0);
  } else {
    // Output closed; the shell may still be exiting. Wait, up to the deadline.
    for (;;) {
      pid_t w = ::waitpid(pid, &status, WNOHANG);
      if (w == pid)
        break;
      if (w < 0 && errno != EINTR)
        break;
      if (Clock::now() >= deadline) {
        result.timedOut = true;
        ::kill(-pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        break;
      }
      ::usleep(2000);
    }
  }
  if (!result.timedOut) {
    if (WIFEXITED(status))
      result.exitCode = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
      result.signal = WTERMSIG(status);
  }
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

} // namespace ktune::planner
