// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// How much parallelism the (shared) machine offers right now, for the
// benchmarks that compare 1 and 2 threads: the best wall time of some work
// split over std::threads, and the busy loop (pure arithmetic, no ecmo
// code, no memory traffic) whose 2 threads / 1 ratio is 2.0x when a second
// core is free and 1.0x when it is taken.

#ifndef ECMO_BENCHMARKS_CALIBRATION_H_
#define ECMO_BENCHMARKS_CALIBRATION_H_

#ifdef __linux__
#include <pthread.h>
#include <sched.h>
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "median.h"

namespace ecmo_bench {

// Best wall time of `repeats` runs of `work` (called with the thread's
// index, returning a value kept so the loop is not optimized away) on
// `threads` std::threads at once.
inline double BestWallTime(int threads,
                           int repeats,
                           const std::function<double(int)>& work) {
  double best = 1e300;
  for (int rep = 0; rep < repeats; ++rep) {
    const auto begin = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    std::vector<double> sums(threads, 0.0);
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([t, &work, &sums] { sums[t] = work(t); });
    }
    for (std::thread& thread : pool) thread.join();
    best = std::min(
        best,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin)
            .count());
    if (sums[0] == 0.0) std::printf(" ");  // keeps the loop
  }
  return best;
}

// Best wall time of `iterations` steps of a fixed arithmetic loop split
// over `threads` std::threads.
inline double BusyLoopWallTime(int threads, int repeats, long iterations) {
  return BestWallTime(threads, repeats, [threads, iterations](int) {
    double x = 0.0;
    for (long i = 0; i < iterations / threads; ++i) x += 1.0 / (i + 1.0);
    return x;
  });
}

// The CPUs the calling thread may run on (empty where not known).
inline std::vector<int> AllowedCpus() {
  std::vector<int> cpus;
#ifdef __linux__
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
    }
  }
#endif
  return cpus;
}

// Keeps the calling thread on one CPU while it lives, then restores the
// thread's mask. Why: the two vCPUs of a virtual machine need not be
// equally fast on short bursts of work (one measured 1.5x slower per
// point of a 1 ms sweep than the other, while a busy loop ran at the
// same speed on both), and a one-thread run lands on either, so its time
// is bimodal; pinned runs on each CPU in turn say which is which. A no-op
// where affinity is not available.
class PinnedTo {
 public:
  explicit PinnedTo(int cpu) {
#ifdef __linux__
    if (cpu < 0 || cpu >= CPU_SETSIZE) return;
    if (pthread_getaffinity_np(pthread_self(), sizeof(saved_), &saved_) != 0) {
      return;
    }
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    pinned_ = pthread_setaffinity_np(pthread_self(), sizeof(one), &one) == 0;
#else
    (void)cpu;
#endif
  }
  ~PinnedTo() {
#ifdef __linux__
    if (pinned_)
      pthread_setaffinity_np(pthread_self(), sizeof(saved_), &saved_);
#endif
  }
  PinnedTo(const PinnedTo&) = delete;
  PinnedTo& operator=(const PinnedTo&) = delete;

 private:
#ifdef __linux__
  cpu_set_t saved_;
  bool pinned_ = false;
#endif
};

// Two threads' speed-up on CPUs that need not be equally fast: the
// two-thread throughput over the mean one-thread throughput of the two
// CPUs, 2 / (t_two (1 / t_a + 1 / t_b)) for one-thread times t_a and t_b.
// On equal CPUs it is t_one / t_two; a perfect split of the work scores 2
// on any two CPUs (a ratio against the slower CPU alone could exceed 2,
// one against the faster could never reach it).
inline double SpeedUpOverMeanCpu(double t_two, double t_a, double t_b) {
  return 2.0 / (t_two * (1.0 / t_a + 1.0 / t_b));
}

// A second thread that runs one job at a time beside the caller's and
// sleeps on a condition variable in between, as a pool thread of the
// library does: what a parallel loop could reach on this machine at best,
// with none of the loop's shared state (its lock, its neighbour queries,
// one setup for both threads), for work split in two by hand.
class PartnerThread {
 public:
  PartnerThread() : thread_([this] { Loop(); }) {}
  ~PartnerThread() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      quit_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }
  PartnerThread(const PartnerThread&) = delete;
  PartnerThread& operator=(const PartnerThread&) = delete;

  // Wall time (s) of mine() on the calling thread and theirs() on the
  // partner, started together, until both have returned.
  double Run(const std::function<void()>& mine,
             const std::function<void()>& theirs) {
    const auto begin = std::chrono::steady_clock::now();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = theirs;
      done_ = false;
    }
    cv_.notify_one();
    mine();
    {
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait(lock, [this] { return done_; });
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         begin)
        .count();
  }

 private:
  void Loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      cv_.wait(lock, [this] { return quit_ || job_; });
      if (quit_) return;
      std::function<void()> job;
      job.swap(job_);
      lock.unlock();
      job();
      lock.lock();
      done_ = true;
      cv_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable cv_;
  std::function<void()> job_;
  bool done_ = false;
  bool quit_ = false;
  std::thread thread_;  // last: started once the members above exist
};

// What waking a thread asleep on a condition variable costs, as the sweep
// wakes its pooled helper at the start of each sweep: the caller has been
// busy for `busy_us` (its CPU running, the sleeper's idle), then notifies.
// Medians over `repeats` wake-ups, in microseconds: the notify_one call on
// the waker (serial time of the caller) and until the woken thread runs.
// On the development VM the two were 33 and 84 us from a busy waker
// against 7 and 3 us from one that had itself just woken (see
// benchmarks/README.md, "What bounds a two-thread sweep at k = 10").
struct WakeUp {
  double notify_us = 0.0;
  double until_running_us = 0.0;
};
inline WakeUp WakeUpCost(int repeats, int busy_us) {
  using Clock = std::chrono::steady_clock;
  std::mutex mutex;
  std::condition_variable cv;
  int ticket = 0;
  bool quit = false;
  std::atomic<int> seen{0};
  std::atomic<Clock::rep> woke{0};
  std::thread sleeper([&] {
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      cv.wait(lock, [&] { return quit || ticket != seen.load(); });
      if (quit) return;
      woke.store(Clock::now().time_since_epoch().count());
      seen.store(ticket);
    }
  });
  std::vector<double> notify, running;
  for (int i = 0; i < repeats; ++i) {
    const Clock::time_point until =
        Clock::now() + std::chrono::microseconds(busy_us);
    while (Clock::now() < until) {
    }
    {
      std::lock_guard<std::mutex> lock(mutex);
      ++ticket;
    }
    const Clock::time_point begin = Clock::now();
    cv.notify_one();
    const Clock::time_point end = Clock::now();
    while (seen.load() != i + 1) std::this_thread::yield();
    notify.push_back(
        std::chrono::duration<double, std::micro>(end - begin).count());
    running.push_back(
        std::chrono::duration<double, std::micro>(Clock::duration(woke.load()) -
                                                  begin.time_since_epoch())
            .count());
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    quit = true;
  }
  cv.notify_one();
  sleeper.join();
  WakeUp result;
  result.notify_us = Median(notify);
  result.until_running_us = Median(running);
  return result;
}

}  // namespace ecmo_bench

#endif  // ECMO_BENCHMARKS_CALIBRATION_H_
