// The one process spawner: pipes both ways, deadlines, process-group kill,
// exit status.
#include "ktune/Support/Process.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>
#include <unistd.h>

using namespace ktune;

namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

/// A directory removed at the end of the test.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    char pattern[] = "/tmp/ktune-process-test-XXXXXX";
    path = ::mkdtemp(pattern);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

/// Gone, or a zombie nobody has reaped yet: either way it runs no more.
bool processEnded(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  if (!stat)
    return true;
  std::string line;
  std::getline(stat, line);
  size_t paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() &&
         line[paren + 2] == 'Z';
}

bool endsWithin(pid_t pid, double seconds) {
  auto start = std::chrono::steady_clock::now();
  while (!processEnded(pid)) {
    if (secondsSince(start) > seconds)
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

bool endsWithNewline(const std::string &s) {
  return s.find('\n') != std::string::npos;
}

/// An exchange that sends `input` (a view: it must outlive the exchange) and
/// has enough at the first line back.
ChildProcess::Exchange lineExchange(std::string_view input) {
  ChildProcess::Exchange x;
  x.input = input;
  x.enough = endsWithNewline;
  return x;
}

} // namespace

TEST(RunProcess, CatGivesBackItsInput) {
  auto r = runProcess({"/bin/cat"}, "hello\nworld\n", {});
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->out, "hello\nworld\n");
  EXPECT_EQ(r->err, "");
  EXPECT_EQ(r->exitCode, 0);
  EXPECT_EQ(r->signal, 0);
  EXPECT_FALSE(r->timedOut);
}

TEST(RunProcess, NonZeroExitAndStderrAreReported) {
  auto r = runShellCommand("echo out; echo err >&2; exit 3", "", {});
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->out, "out\n");
  EXPECT_EQ(r->err, "err\n");
  EXPECT_EQ(r->exitCode, 3);
  EXPECT_FALSE(r->timedOut);
}

TEST(RunProcess, ASignalIsReported) {
  auto r = runShellCommand("kill -TERM $$", "", {});
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->signal, SIGTERM);
  EXPECT_EQ(r->exitCode, -1);
}

TEST(RunProcess, EnvironmentIsAddedTo) {
  ProcessOptions o;
  o.environment["KTUNE_PROCESS_TEST"] = "value";
  auto r =
      runShellCommand("echo \"$KTUNE_PROCESS_TEST\" \"${HOME+home}\"", "", o);
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->out,
            std::string("value ") + (std::getenv("HOME") ? "home" : "") + "\n");
}

TEST(RunProcess, DeadlineKillsTheWholeProcessGroup) {
  TempDir dir;
  std::string pidFile = (dir.path / "pid").string();
  ProcessOptions o;
  o.timeoutSeconds = 0.5;
  auto start = std::chrono::steady_clock::now();
  // A helper in the background that would outlive its shell.
  auto r = runShellCommand(
      "sleep 30 & echo $! > '" + pidFile + "'; echo started; sleep 30", "", o);
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_TRUE(r->timedOut);
  EXPECT_EQ(r->exitCode, -1);
  EXPECT_EQ(r->out, "started\n");
  EXPECT_LT(secondsSince(start), 5.0);
  std::ifstream in(pidFile);
  pid_t helper = 0;
  ASSERT_TRUE(in >> helper);
  EXPECT_TRUE(endsWithin(helper, 5.0)) << "the background helper survived";
}

TEST(RunProcess, MissingProgramIsAnError) {
  auto r = runProcess({"/nonexistent/program"}, "", {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("cannot start /nonexistent/program"),
            std::string::npos)
      << r.error().message;
}

TEST(ChildProcess, ExchangesLinesWithALongLivedChild) {
  auto child = ChildProcess::spawn({"/bin/cat"});
  ASSERT_TRUE(child) << child.error().str();
  for (int i = 0; i < 50; ++i) {
    std::string line = "line " + std::to_string(i) + "\n";
    ChildProcess::Exchange x = lineExchange(line);
    child->exchange(x, deadlineIn(10));
    ASSERT_FALSE(x.timedOut);
    EXPECT_EQ(x.out, line);
  }
  // Large messages both ways do not block each other.
  std::string big(4 << 20, 'x');
  big += '\n';
  ChildProcess::Exchange x;
  x.input = big;
  x.enough = [&](const std::string &out) { return out.size() == big.size(); };
  child->exchange(x, deadlineIn(30));
  EXPECT_FALSE(x.timedOut);
  EXPECT_EQ(x.out.size(), big.size());
  child->closeInput();
  ExitStatus s = child->wait(deadlineIn(10));
  EXPECT_EQ(s.exitCode, 0);
  EXPECT_FALSE(s.timedOut);
  EXPECT_FALSE(child->running());
}

TEST(ChildProcess, ExchangeStopsAtTheDeadline) {
  auto child = ChildProcess::spawn({"/bin/sh", "-c", "read x; sleep 30"});
  ASSERT_TRUE(child) << child.error().str();
  ChildProcess::Exchange x = lineExchange("ping\n");
  auto start = std::chrono::steady_clock::now();
  child->exchange(x, deadlineIn(0.3));
  EXPECT_TRUE(x.timedOut);
  EXPECT_GE(secondsSince(start), 0.25);
  EXPECT_LT(secondsSince(start), 5.0);
  EXPECT_TRUE(child->running());
  ExitStatus s = child->kill();
  EXPECT_EQ(s.signal, SIGKILL);
  EXPECT_EQ(s.describe().rfind("killed by signal 9", 0), 0u) << s.describe();
  EXPECT_FALSE(child->running());
}

TEST(ChildProcess, WaitKillsAtItsDeadline) {
  auto child = ChildProcess::spawn({"/bin/sleep", "30"});
  ASSERT_TRUE(child) << child.error().str();
  ExitStatus s = child->wait(deadlineIn(0.2));
  EXPECT_TRUE(s.timedOut);
  EXPECT_EQ(s.signal, SIGKILL);
}

TEST(ChildProcess, AChildThatEndsIsSeenAsEndOfFile) {
  auto child = ChildProcess::spawn({"/bin/sh", "-c", "read x; exit 5"});
  ASSERT_TRUE(child) << child.error().str();
  ChildProcess::Exchange x = lineExchange("go\n");
  child->exchange(x, deadlineIn(10));
  EXPECT_TRUE(x.outputClosed);
  EXPECT_FALSE(x.timedOut);
  ExitStatus s = child->wait(deadlineIn(10));
  EXPECT_EQ(s.exitCode, 5);
  EXPECT_EQ(s.describe(), "exited with status 5");
}

TEST(ChildProcess, InputToAChildThatStoppedReadingIsRefused) {
  // Writing must fail with EPIPE, not kill this process with SIGPIPE.
  auto child = ChildProcess::spawn({"/bin/sh", "-c", "exec 0<&-; sleep 1"});
  ASSERT_TRUE(child) << child.error().str();
  std::string big(1 << 20, 'x');
  ChildProcess::Exchange x = lineExchange(big);
  child->exchange(x, deadlineIn(10));
  EXPECT_TRUE(x.inputRefused);
  EXPECT_FALSE(x.timedOut);
}

TEST(ChildProcess, StderrCanGoToAFile) {
  TempDir dir;
  SpawnOptions o;
  o.stderrTo = SpawnOptions::Stderr::File;
  o.stderrFile = (dir.path / "err.log").string();
  auto child = ChildProcess::spawn({"/bin/sh", "-c", "echo to-file >&2"}, o);
  ASSERT_TRUE(child) << child.error().str();
  EXPECT_EQ(child->wait(deadlineIn(10)).exitCode, 0);
  std::ifstream in(o.stderrFile);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "to-file");
}

TEST(ChildProcess, WithoutAGroupOfItsOwnOnlyTheChildIsKilled) {
  SpawnOptions o;
  o.ownProcessGroup = false;
  o.stderrTo = SpawnOptions::Stderr::Inherit;
  auto child = ChildProcess::spawn({"/bin/sleep", "30"}, o);
  ASSERT_TRUE(child) << child.error().str();
  EXPECT_EQ(::getpgid(child->pid()), ::getpgrp());
  EXPECT_EQ(child->kill().signal, SIGKILL);
  // Killing again does nothing.
  EXPECT_EQ(child->kill().signal, SIGKILL);
}

TEST(ChildProcess, DestroyingItKillsTheChild) {
  pid_t pid = 0;
  {
    auto child = ChildProcess::spawn({"/bin/sleep", "30"});
    ASSERT_TRUE(child) << child.error().str();
    pid = child->pid();
    ChildProcess moved = std::move(*child);
    EXPECT_FALSE(child->running());
    EXPECT_TRUE(moved.running());
  }
  EXPECT_TRUE(processEnded(pid));
}
