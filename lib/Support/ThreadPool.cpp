#include "ktune/Support/ThreadPool.h"

namespace ktune {

int ThreadPool::hardwareThreads() {
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

ThreadPool::ThreadPool(int threads) {
  if (threads <= 0)
    threads = hardwareThreads();
  for (int i = 0; i < threads; ++i)
    Threads.emplace_back([this] { run(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(Mutex);
    Stopping = true;
  }
  Wake.notify_all();
  for (auto &t : Threads)
    t.join();
}

void ThreadPool::submit(std::function<void()> job) {
  {
    std::lock_guard<std::mutex> lock(Mutex);
    Queue.push_back(std::move(job));
  }
  Wake.notify_one();
}

void ThreadPool::wait() {
  std::unique_lock<std::mutex> lock(Mutex);
  Idle.wait(lock, [this] { return Queue.empty() && Running == 0; });
}

void ThreadPool::run() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock<std::mutex> lock(Mutex);
      Wake.wait(lock, [this] { return Stopping || !Queue.empty(); });
      if (Queue.empty())
        return; // stopping and drained
      job = std::move(Queue.front());
      Queue.pop_front();
      ++Running;
    }
    job();
    {
      std::lock_guard<std::mutex> lock(Mutex);
      --Running;
      if (Queue.empty() && Running == 0)
        Idle.notify_all();
    }
  }
}

} // namespace ktune
