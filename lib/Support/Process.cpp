//===- Process.cpp - Child processes with deadlines -----------------------===//
#include "ktune/Support/Process.h"
#include "ktune/Support/Try.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

namespace ktune {

using Clock = std::chrono::steady_clock;

Deadline deadlineIn(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(
                            std::chrono::duration<double>(seconds));
}

std::string ExitStatus::describe() const {
  if (signal) {
    const char *name = strsignal(signal);
    return "killed by signal " + std::to_string(signal) +
           (name ? std::string(" (") + name + ")" : std::string());
  }
  if (exitCode >= 0)
    return "exited with status " + std::to_string(exitCode);
  return "ended (its status is unknown)";
}

namespace {

void closeFd(int &fd) {
  if (fd >= 0)
    ::close(fd);
  fd = -1;
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
    // Drop a SIGPIPE our writes raised, not one that was already pending.
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

/// This process's environment with `overrides` added or replacing.
std::vector<std::string>
environmentWith(const std::map<std::string, std::string> &overrides) {
  std::vector<std::string> out;
  for (char **e = environ; e && *e; ++e) {
    std::string entry = *e;
    if (!overrides.count(entry.substr(0, entry.find('='))))
      out.push_back(std::move(entry));
  }
  for (const auto &[name, value] : overrides)
    out.push_back(name + "=" + value);
  return out;
}

} // namespace

Expected<ChildProcess> ChildProcess::spawn(const std::vector<std::string> &argv,
                                           const SpawnOptions &options) {
  if (argv.empty())
    return makeError("cannot start a process without a program");
  bool pipeErr = options.stderrTo == SpawnOptions::Stderr::Pipe;
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
  auto closePipes = [&] {
    for (int *p : {in, out, err})
      for (int i : {0, 1})
        closeFd(p[i]);
  };
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 ||
      (pipeErr && ::pipe2(err, O_CLOEXEC) != 0)) {
    std::string why = std::strerror(errno);
    closePipes();
    return makeError("cannot create pipes: " + why);
  }

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // dup2 clears close-on-exec on the copies; the originals close at exec.
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  if (pipeErr)
    posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  else if (options.stderrTo == SpawnOptions::Stderr::File)
    posix_spawn_file_actions_addopen(&actions, 2, options.stderrFile.c_str(),
                                     O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  short flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK;
  if (options.ownProcessGroup) {
    posix_spawnattr_setpgroup(&attr, 0);
    flags |= POSIX_SPAWN_SETPGROUP;
  }
  // Default signal handling, whatever this process ignores or blocks.
  sigset_t defaults, empty;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  sigemptyset(&empty);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setsigmask(&attr, &empty);
  posix_spawnattr_setflags(&attr, flags);

  std::vector<std::string> argvStore = argv;
  std::vector<char *> args;
  for (auto &a : argvStore)
    args.push_back(a.data());
  args.push_back(nullptr);
  std::vector<std::string> envStore = environmentWith(options.environment);
  std::vector<char *> envp;
  for (auto &e : envStore)
    envp.push_back(e.data());
  envp.push_back(nullptr);

  pid_t pid = -1;
  int rc = posix_spawn(&pid, argv[0].c_str(), &actions, &attr, args.data(),
                       envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    closePipes();
    return makeError("cannot start " + argv[0] + ": " + std::strerror(rc));
  }
  ChildProcess child;
  child.Pid = pid;
  child.OwnGroup = options.ownProcessGroup;
  child.In = in[1];
  child.Out = out[0];
  child.Err = err[0];
  in[1] = out[0] = err[0] = -1;
  closePipes(); // the child's ends
  for (int fd : {child.In, child.Out, child.Err})
    if (fd >= 0)
      ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  return child;
}

ChildProcess::ChildProcess(ChildProcess &&other) noexcept {
  *this = std::move(other);
}

ChildProcess &ChildProcess::operator=(ChildProcess &&other) noexcept {
  if (this != &other) {
    kill();
    closeAll();
    Pid = std::exchange(other.Pid, -1);
    OwnGroup = other.OwnGroup;
    In = std::exchange(other.In, -1);
    Out = std::exchange(other.Out, -1);
    Err = std::exchange(other.Err, -1);
    Status = other.Status;
  }
  return *this;
}

ChildProcess::~ChildProcess() {
  kill();
  closeAll();
}

void ChildProcess::closeInput() { closeFd(In); }

void ChildProcess::closeAll() {
  closeFd(In);
  closeFd(Out);
  closeFd(Err);
}

ExitStatus ChildProcess::reaped(int status) {
  Pid = -1;
  closeAll();
  Status = ExitStatus{};
  if (WIFEXITED(status))
    Status.exitCode = WEXITSTATUS(status);
  else if (WIFSIGNALED(status))
    Status.signal = WTERMSIG(status);
  return Status;
}

ExitStatus ChildProcess::kill() {
  if (Pid <= 0)
    return Status;
  ::kill(OwnGroup ? -Pid : Pid, SIGKILL);
  int status = 0;
  while (::waitpid(Pid, &status, 0) < 0) {
    if (errno != EINTR) {
      Pid = -1;
      closeAll();
      return Status = ExitStatus{};
    }
  }
  return reaped(status);
}

ExitStatus ChildProcess::wait(Deadline deadline) {
  for (;;) {
    if (Pid <= 0)
      return Status;
    int status = 0;
    pid_t w = ::waitpid(Pid, &status, WNOHANG);
    if (w == Pid)
      return reaped(status);
    if (w < 0 && errno != EINTR) {
      Pid = -1;
      closeAll();
      return Status = ExitStatus{};
    }
    if (Clock::now() >= deadline) {
      ExitStatus s = kill();
      s.timedOut = true;
      return s;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

void ChildProcess::exchange(Exchange &x, Deadline deadline) {
  SigpipeGuard guard;
  size_t written = 0;
  auto inputDone = [&] { return written == x.input.size(); };
  auto finishInput = [&] {
    if (In >= 0 && inputDone() && x.closeInputAfter)
      closeInput();
  };
  finishInput();
  char buffer[1 << 16];
  for (;;) {
    if (!inputDone() && In < 0) {
      x.inputRefused = true;
      if (x.enough)
        return; // the reply cannot come
    }
    if (inputDone() && x.enough && x.enough(x.out))
      return;
    if (Out < 0 && Err < 0)
      return;
    auto now = Clock::now();
    if (now >= deadline) {
      x.timedOut = true;
      return;
    }
    std::vector<pollfd> fds;
    if (In >= 0 && !inputDone())
      fds.push_back({In, POLLOUT, 0});
    if (Out >= 0)
      fds.push_back({Out, POLLIN, 0});
    if (Err >= 0)
      fds.push_back({Err, POLLIN, 0});
    int waitMs = static_cast<int>(std::min<int64_t>(
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now)
                .count() +
            1,
        1000));
    int n = ::poll(fds.data(), fds.size(), waitMs);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      x.timedOut = true; // cannot wait for the child any more
      return;
    }
    for (const pollfd &p : fds) {
      if (!p.revents)
        continue;
      if (p.fd == In) {
        ssize_t w =
            ::write(In, x.input.data() + written, x.input.size() - written);
        if (w > 0)
          written += static_cast<size_t>(w);
        if ((w < 0 && errno != EAGAIN && errno != EINTR) ||
            (!inputDone() && (p.revents & (POLLERR | POLLHUP))))
          closeInput(); // the child stopped reading
        finishInput();
        continue;
      }
      bool isOut = p.fd == Out;
      ssize_t r = ::read(p.fd, buffer, sizeof buffer);
      if (r > 0) {
        std::string &dest = isOut ? x.out : x.err;
        size_t room = x.maxOutput > dest.size() ? x.maxOutput - dest.size() : 0;
        if (static_cast<size_t>(r) > room && isOut)
          x.outputTruncated = true;
        dest.append(buffer, std::min(room, static_cast<size_t>(r)));
      } else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
        closeFd(isOut ? Out : Err);
        if (isOut)
          x.outputClosed = true;
      }
    }
  }
}

Expected<ProcessResult> runProcess(const std::vector<std::string> &argv,
                                   const std::string &input,
                                   const ProcessOptions &options) {
  auto start = Clock::now();
  SpawnOptions spawnOptions;
  spawnOptions.environment = options.environment;
  KTUNE_TRY_ASSIGN(auto child, ChildProcess::spawn(argv, spawnOptions));
  Deadline deadline =
      start + std::chrono::duration_cast<Clock::duration>(
                  std::chrono::duration<double>(options.timeoutSeconds));
  ChildProcess::Exchange x;
  x.input = input;
  x.closeInputAfter = true;
  x.maxOutput = options.maxOutputBytes;
  child.exchange(x, deadline);

  ProcessResult result;
  ExitStatus status;
  if (x.timedOut) {
    result.timedOut = true;
    child.kill();
  } else {
    // Output closed; the process may still be exiting.
    status = child.wait(deadline);
    result.timedOut = status.timedOut;
  }
  if (!result.timedOut) {
    result.exitCode = status.exitCode;
    result.signal = status.signal;
  }
  result.out = std::move(x.out);
  result.err = std::move(x.err);
  result.outputTruncated = x.outputTruncated;
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

Expected<ProcessResult> runShellCommand(const std::string &commandLine,
                                        const std::string &input,
                                        const ProcessOptions &options) {
  return runProcess({"/bin/sh", "-c", commandLine}, input, options);
}

} // namespace ktune
