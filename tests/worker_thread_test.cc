// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// internal::WorkerThread (plugin/src/worker_thread.h): runs its body once
// and joins; moves; where the caller may run on several CPUs the thread
// starts on another CPU than the caller's and then may run on all of the
// caller's CPUs again (it is not left pinned); StartWorkers runs its body
// once for every thread number of its range and appends the threads.

#include "worker_thread.h"

#include <sched.h>

#include <atomic>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace ecmo {
namespace internal {
namespace {

TEST(WorkerThread, RunsItsBodyOnceAndJoins) {
  std::atomic<int> runs(0);
  WorkerThread thread;
  EXPECT_FALSE(thread.joinable());
  ASSERT_TRUE(thread.Start([&] { ++runs; }));
  EXPECT_TRUE(thread.joinable());
  thread.Join();
  EXPECT_FALSE(thread.joinable());
  EXPECT_EQ(runs.load(), 1);
  thread.Join();  // joining twice is harmless
  EXPECT_EQ(runs.load(), 1);
}

TEST(WorkerThread, MovesAndJoinsWhenDestroyed) {
  std::atomic<int> runs(0);
  {
    std::vector<WorkerThread> pool;
    for (int i = 0; i < 4; ++i) {
      WorkerThread thread;
      ASSERT_TRUE(thread.Start([&] { ++runs; }));
      pool.push_back(std::move(thread));
      EXPECT_FALSE(thread.joinable());  // NOLINT: moved from on purpose
    }
    WorkerThread moved = std::move(pool[0]);
    EXPECT_TRUE(moved.joinable());
  }  // every thread joined here
  EXPECT_EQ(runs.load(), 4);
}

#ifdef __linux__
TEST(WorkerThread, StartWorkersRunsEveryNumberOfItsRangeOnce) {
  std::vector<std::atomic<int>> runs(8);
  for (auto& r : runs) r = 0;
  std::vector<WorkerThread> threads;
  // Appends: a first batch 2..4, then 5..6 (as the MPI server adds
  // threads), with a temporary body each time.
  EXPECT_EQ(StartWorkers(2, 5, [&](int t) { ++runs[t]; }, &threads), 3);
  EXPECT_EQ(StartWorkers(5, 7, [&](int t) { runs[t] += 10; }, &threads), 2);
  EXPECT_EQ(StartWorkers(7, 7, [&](int t) { ++runs[t]; }, &threads), 0);
  EXPECT_EQ(threads.size(), 5u);
  for (WorkerThread& t : threads) t.Join();
  const std::vector<int> expected = {0, 0, 1, 1, 1, 10, 10, 0};
  for (int t = 0; t < 8; ++t) EXPECT_EQ(runs[t].load(), expected[t]) << t;
}

TEST(WorkerThread, StartsOnAnotherCpuAndIsNotLeftPinned) {
  cpu_set_t allowed;
  ASSERT_EQ(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
  if (CPU_COUNT(&allowed) < 2) {
    GTEST_SKIP() << "this process may run on one CPU only";
  }
  int checked = 0;
  for (int trial = 0; trial < 20 && checked < 5; ++trial) {
    int first_cpu = -1;
    cpu_set_t mask_in_thread;
    CPU_ZERO(&mask_in_thread);
    WorkerThread thread;
    const int before = sched_getcpu();
    ASSERT_TRUE(thread.Start([&] {
      first_cpu = sched_getcpu();
      sched_getaffinity(0, sizeof(mask_in_thread), &mask_in_thread);
    }));
    const int after = sched_getcpu();
    thread.Join();
    EXPECT_TRUE(CPU_EQUAL(&mask_in_thread, &allowed)) << trial;
    ASSERT_GE(first_cpu, 0);
    EXPECT_TRUE(CPU_ISSET(first_cpu, &allowed));
    // The start CPU is chosen among the others of the caller's CPU at the
    // time: meaningful when the caller did not move during Start.
    if (before == after) {
      ++checked;
      EXPECT_NE(first_cpu, before) << trial;
    }
  }
  EXPECT_GT(checked, 0);
}
#endif

}  // namespace
}  // namespace internal
}  // namespace ecmo
