// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Small helpers the plain-table benchmarks share: a wall clock and the
// comma-separated lists of their flags.

#ifndef ECMO_BENCHMARKS_BENCH_UTIL_H_
#define ECMO_BENCHMARKS_BENCH_UTIL_H_

#include <chrono>
#include <sstream>
#include <string>
#include <vector>

namespace ecmo_bench {

using Clock = std::chrono::steady_clock;

// Wall-clock seconds since `start`.
inline double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// "a,b,,c" -> {"a", "b", "c"} (empty items dropped).
inline std::vector<std::string> SplitList(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

}  // namespace ecmo_bench

#endif  // ECMO_BENCHMARKS_BENCH_UTIL_H_
