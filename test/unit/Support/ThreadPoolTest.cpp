#include "ktune/Support/ThreadPool.h"

#include <gtest/gtest.h>

#include <atomic>

using namespace ktune;

TEST(ThreadPool, RunsEveryJobAndWaits) {
  ThreadPool pool(3);
  EXPECT_EQ(pool.size(), 3);
  std::atomic<int> sum{0};
  for (int i = 1; i <= 100; ++i)
    pool.submit([&sum, i] { sum += i; });
  pool.wait();
  EXPECT_EQ(sum.load(), 5050);
  pool.submit([&sum] { sum += 1; });
  pool.wait();
  EXPECT_EQ(sum.load(), 5051);
}

TEST(ThreadPool, DestructorFinishesQueuedJobs) {
  std::atomic<int> done{0};
  {
    ThreadPool pool(2);
    for (int i = 0; i < 20; ++i)
      pool.submit([&done] { ++done; });
  }
  EXPECT_EQ(done.load(), 20);
}

TEST(ThreadPool, ZeroThreadsMeansOnePerHardwareThread) {
  ThreadPool pool;
  EXPECT_EQ(pool.size(), ThreadPool::hardwareThreads());
  EXPECT_GE(ThreadPool::hardwareThreads(), 1);
}
