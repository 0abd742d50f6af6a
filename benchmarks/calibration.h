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
#include <cstdio>
#include <functional>
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

}  // namespace ecmo_bench

#endif  // ECMO_BENCHMARKS_CALIBRATION_H_
