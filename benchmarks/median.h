// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// The median the benchmarks report: the upper middle entry of the sorted
// values (the middle one for an odd count, which every default uses), 0 for
// none.

#ifndef ECMO_BENCHMARKS_MEDIAN_H_
#define ECMO_BENCHMARKS_MEDIAN_H_

#include <algorithm>
#include <vector>

namespace ecmo_bench {

inline double Median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace ecmo_bench

#endif  // ECMO_BENCHMARKS_MEDIAN_H_
