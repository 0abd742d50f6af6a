// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// How much parallelism the (shared) machine offers right now, for the
// benchmarks that compare 1 and 2 threads: the best wall time of some work
// split over std::threads, and the busy loop (pure arithmetic, no ecmo
// code, no memory traffic) whose 2 threads / 1 ratio is 2.0x when a second
// core is free and 1.0x when it is taken.

#ifndef ECMO_BENCHMARKS_CALIBRATION_H_
#define ECMO_BENCHMARKS_CALIBRATION_H_

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

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

}  // namespace ecmo_bench

#endif  // ECMO_BENCHMARKS_CALIBRATION_H_
