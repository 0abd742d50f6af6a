// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// internal::WorkerThread (plugin/src/worker_thread.h): runs its body once
// and joins; moves; where the caller may run on several CPUs the thread
// starts on another CPU than the caller's and then may run on all of the
// caller's CPUs again (it is not left pinned); StartWorkers runs its body
// once for every thread number of its range and appends the threads;
// WorkerTeam runs every number of its range once on pooled threads that
// successive teams reuse, one thread per body of a Start, with nested,
// concurrent and forked uses. A Gate shares work with the helpers waiting
// at it (waking sleeping ones; those with nothing left to take sleep
// instead of polling the Share) and holds helpers until it opens (also
// past its spin), lets through those below the number it opens with and
// sends the others (all, when opened with 0) home. LockBriefly excludes
// as a lock does, also when the holder keeps the mutex far longer than
// the spin, and returns the lock owned.

#include "worker_thread.h"

#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <ctime>
#include <mutex>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "sanitizers.h"

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
  EXPECT_EQ(StartWorkers(
                2, 5, [&](int t) { ++runs[t]; }, &threads),
            3);
  EXPECT_EQ(StartWorkers(
                5, 7, [&](int t) { runs[t] += 10; }, &threads),
            2);
  EXPECT_EQ(StartWorkers(
                7, 7, [&](int t) { ++runs[t]; }, &threads),
            0);
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
    int cpu_in_body = -1;
    cpu_set_t mask_in_thread;
    CPU_ZERO(&mask_in_thread);
    WorkerThread thread;
    const int before = sched_getcpu();
    ASSERT_TRUE(thread.Start([&] {
      cpu_in_body = sched_getcpu();
      sched_getaffinity(0, sizeof(mask_in_thread), &mask_in_thread);
    }));
    const int after = sched_getcpu();
    thread.Join();
    EXPECT_TRUE(CPU_EQUAL(&mask_in_thread, &allowed)) << trial;
    ASSERT_GE(cpu_in_body, 0);
    EXPECT_TRUE(CPU_ISSET(cpu_in_body, &allowed));
    // Where the thread began, not where its body ran: once the thread has
    // widened its mask, the scheduler may move it onto the caller's CPU
    // (it did, under ctest -j2 with the other CPU busy, while the caller
    // slept in Join). The start CPU is chosen among the others of the
    // caller's CPU at the time: meaningful when the caller did not move
    // during Start.
    ASSERT_GE(thread.start_cpu(), 0) << trial;
    EXPECT_TRUE(CPU_ISSET(thread.start_cpu(), &allowed)) << trial;
    if (before == after) {
      ++checked;
      EXPECT_NE(thread.start_cpu(), before) << trial;
    }
  }
  EXPECT_GT(checked, 0);
}
#endif

// WorkerTeam: every number of the range once, on the pool's threads plus
// the caller; Join makes the bodies' plain (non-atomic) writes visible
// (ThreadSanitizer checks the ordering in the sanitizer job).
TEST(WorkerTeam, RunsEveryNumberOnceAndJoinSeesTheirWrites) {
  std::vector<int> seen(6, -1);
  for (int round = 0; round < 50; ++round) {
    WorkerTeam team;
    const int started = team.Start(1, 6, [&seen, round](int t) {
      // Now and then longer than Join's spin: Join must then sleep.
      if (round % 10 == 0 && t == 5) {
        std::this_thread::sleep_for(std::chrono::milliseconds(3));
      }
      seen[t] = round;
    });
    EXPECT_EQ(started, 5);
    seen[0] = round;  // the caller's share
    team.Join();
    for (int t = 0; t < 6; ++t) ASSERT_EQ(seen[t], round) << t;
  }
}

// The bodies of one Start run each on its own thread (they may wait for
// each other): a thread whose body ended early is not handed a second one
// of the same Start.
TEST(WorkerTeam, EveryBodyOfOneStartHasItsOwnThread) {
  for (int round = 0; round < 50; ++round) {
    WorkerTeam team;
    std::mutex mutex;
    std::set<std::thread::id> threads;
    auto body = [&](int t) {
      {
        std::lock_guard<std::mutex> lock(mutex);
        threads.insert(std::this_thread::get_id());
      }
      // Body 1 ends at once, the others a little later.
      if (t != 1) std::this_thread::sleep_for(std::chrono::microseconds(200));
    };
    ASSERT_EQ(team.Start(1, 5, body), 4);
    body(0);
    team.Join();
    EXPECT_EQ(threads.size(), 5u) << "round " << round;
  }
}

// The helpers come back to the pool: successive teams run on the same few
// threads instead of new ones (a thread-local count of the bodies each
// thread ran grows across teams).
TEST(WorkerTeam, SuccessiveTeamsReuseThePoolsThreads) {
  static thread_local int bodies_here = 0;
  std::atomic<int> most(0);
  for (int round = 0; round < 40; ++round) {
    WorkerTeam team;
    team.Start(0, 2, [&](int) {
      const int n = ++bodies_here;
      int m = most.load();
      while (n > m && !most.compare_exchange_weak(m, n)) {
      }
    });
    team.Join();
  }
  // 80 bodies on fresh threads would give 1; the pool keeps two or three.
  EXPECT_GE(most.load(), 20);
}

// Teams inside teams' bodies, and teams on several threads at once: every
// body runs exactly once.
TEST(WorkerTeam, NestedAndConcurrentTeams) {
  std::atomic<int> total(0);
  auto nested = [&total](int) {
    WorkerTeam inner;
    inner.Start(0, 3, [&total](int) { ++total; });
    ++total;
    inner.Join();
  };
  std::vector<WorkerThread> callers(3);
  for (WorkerThread& c : callers) {
    ASSERT_TRUE(c.Start([&] {
      for (int round = 0; round < 10; ++round) {
        WorkerTeam outer;
        outer.Start(0, 2, nested);
        outer.Join();
      }
    }));
  }
  for (WorkerThread& c : callers) c.Join();
  // 3 callers x 10 rounds x 2 outer bodies x (3 inner + 1).
  EXPECT_EQ(total.load(), 3 * 10 * 2 * 4);
}

// Helpers started before the work is ready wait at the gate, also when it
// opens long after their spin (they must then sleep and be woken), and
// see everything written before Open; helpers t >= the number it opens
// with return without working.
TEST(Gate, HoldsHelpersUntilItOpensAndLetsOnlyTheChosenThrough) {
  for (int round = 0; round < 20; ++round) {
    Gate gate;
    WorkerTeam team;
    std::vector<int> ready(4, 0);  // written before Open, read after Wait
    std::vector<int> ran(4, 0);
    std::atomic<int> through(0);
    const int started = team.Start(1, 4, [&](int t) {
      if (!gate.Wait(t)) return;
      ran[t] = ready[t];
      ++through;
    });
    ASSERT_EQ(started, 3);
    // Past the spin now and then.
    if (round % 4 == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(3));
    }
    EXPECT_EQ(through.load(), 0);
    for (int& r : ready) r = round + 1;
    gate.Open(3);  // the caller and helpers 1 and 2
    team.Join();
    EXPECT_EQ(through.load(), 2);
    EXPECT_EQ(ran[1], round + 1);
    EXPECT_EQ(ran[2], round + 1);
    EXPECT_EQ(ran[3], 0);  // sent home
  }
}

// Open(0) (a sweep that failed to prepare) sends every helper home, so
// that the team's Join returns.
TEST(Gate, OpeningWithZeroSendsEveryHelperHome) {
  Gate gate;
  WorkerTeam team;
  std::atomic<int> through(0);
  team.Start(1, 3, [&](int t) {
    if (gate.Wait(t)) ++through;
  });
  gate.Open(0);
  team.Join();
  EXPECT_EQ(through.load(), 0);
  // A Wait after Open returns at once, with the same answer.
  EXPECT_FALSE(gate.Wait(1));
}

// Share before Open: every item runs exactly once, only on the caller
// (t = 0) and on helpers t < threads, and each call has returned when
// Share does; after it the gate opens as usual. Helpers that have slept
// past their spin are woken for the work: items long enough (20 ms each,
// two per thread) that a woken helper must take some.
TEST(Gate, ShareRunsEveryItemOnceOnTheChosenThreadsAndWakesSleepers) {
  for (int round = 0; round < 6; ++round) {
    const bool asleep = round % 2 == 1;
    Gate gate;
    WorkerTeam team;
    std::atomic<int> through(0);
    ASSERT_EQ(team.Start(1,
                         4,
                         [&](int t) {
                           if (gate.Wait(t)) ++through;
                         }),
              3);
    if (asleep) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const int n = asleep ? 6 : 200;
    std::vector<std::atomic<int>> runs(n);
    std::vector<std::atomic<int>> by_thread(4);
    std::atomic<int> inside(0);
    gate.Share(n, 3, [&](int i, int t) {
      ++inside;
      ++runs[i];
      ++by_thread[t];
      if (asleep) std::this_thread::sleep_for(std::chrono::milliseconds(20));
      --inside;
    });
    EXPECT_EQ(inside.load(), 0) << "Share returned before a call did";
    for (int i = 0; i < n; ++i) EXPECT_EQ(runs[i].load(), 1) << "item " << i;
    EXPECT_EQ(by_thread[3].load(), 0) << "helper 3 is not among the threads";
    EXPECT_EQ(by_thread[0] + by_thread[1] + by_thread[2], n);
    if (asleep) {
      EXPECT_GT(by_thread[1] + by_thread[2], 0)
          << "no sleeping helper was woken for 6 items of 20 ms";
    }
    gate.Open(2);
    team.Join();
    EXPECT_EQ(through.load(), 1);  // helper 1 only
  }
}

// A helper with nothing (left) to take of a Share waits for the gate as
// before it, spinning briefly and then asleep, instead of polling the Share
// while the caller runs a long item: over a 100 ms item on the caller, the
// helper outside the Share's threads and the one that took the other item
// use at most a fifth of it in CPU time each.
TEST(Gate, HelpersWithNothingToTakeSleepThroughTheRestOfAShare) {
  Gate gate;
  WorkerTeam team;
  std::vector<double> cpu_ms(3, 0.0);
  const auto thread_cpu_ms = [] {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return 1e3 * ts.tv_sec + 1e-6 * ts.tv_nsec;
  };
  ASSERT_EQ(team.Start(1,
                       3,
                       [&](int t) {
                         const double begin = thread_cpu_ms();
                         gate.Wait(t);
                         cpu_ms[t] = thread_cpu_ms() - begin;
                       }),
            2);
  std::atomic<bool> item_1_done(false);
  // Two items on threads 0 and 1: the caller takes item 0 and holds it
  // until helper 1 has run item 1, then for 100 ms more.
  gate.Share(2, 2, [&](int i, int) {
    if (i == 1) {
      item_1_done = true;
      return;
    }
    while (!item_1_done) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  });
  gate.Open(0);
  team.Join();
  EXPECT_LT(cpu_ms[1], 20.0) << "helper 1 polled the Share";
  EXPECT_LT(cpu_ms[2], 20.0) << "helper 2 (not among its threads) polled it";
}

// Two threads add to a plain counter under LockBriefly, each holding the
// mutex now and then for a millisecond (100 times the spin, so that the
// other must fall back to blocking): no increment is lost.
TEST(LockBriefly, ExcludesAndFallsBackToBlocking) {
  std::mutex mutex;
  long counter = 0;
  constexpr int kAdds = 20000;
  const auto add = [&](int who) {
    for (int i = 0; i < kAdds; ++i) {
      const std::unique_lock<std::mutex> lock = LockBriefly(&mutex);
      ASSERT_TRUE(lock.owns_lock());
      const long seen = counter;
      if (i % 5000 == who) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      counter = seen + 1;
    }
  };
  std::thread other(add, 1);
  add(0);
  other.join();
  EXPECT_EQ(counter, 2L * kAdds);
  // Released by the lock's destructor: the mutex is free again.
  ASSERT_TRUE(mutex.try_lock());
  mutex.unlock();
}

#if defined(__linux__) && !ECMO_UNDER_TSAN
// A child of fork() (which has none of the parent's pool threads) gets a
// pool of its own. (Not under ThreadSanitizer, which stops a child that
// starts threads after a multi-threaded fork.)
TEST(WorkerTeam, WorksInAForkedChild) {
  {
    WorkerTeam warm;  // the parent's pool has threads now
    warm.Start(0, 2, [](int) {});
  }
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::atomic<int> runs(0);
    WorkerTeam team;
    team.Start(0, 2, [&](int) { ++runs; });
    team.Join();
    _exit(runs.load() == 2 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}
#endif

}  // namespace
}  // namespace internal
}  // namespace ecmo
