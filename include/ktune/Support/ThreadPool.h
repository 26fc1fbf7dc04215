//===- ktune/Support/ThreadPool.h - Fixed pool of threads -------*- C++ -*-===//
#ifndef KTUNE_SUPPORT_THREADPOOL_H
#define KTUNE_SUPPORT_THREADPOOL_H

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ktune {

/// Runs submitted jobs on `threads` threads (0 = one per hardware thread).
/// The destructor finishes every queued job before it returns.
class ThreadPool {
public:
  explicit ThreadPool(int threads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  void submit(std::function<void()> job);
  /// Blocks until no job is queued or running.
  void wait();
  int size() const { return static_cast<int>(Threads.size()); }

  static int hardwareThreads();

private:
  void run();
  std::vector<std::thread> Threads;
  std::deque<std::function<void()>> Queue;
  std::mutex Mutex;
  std::condition_variable Wake, Idle;
  int Running = 0;
  bool Stopping = false;
};

} // namespace ktune

#endif
