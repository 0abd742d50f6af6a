// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Random directions and relative errors for the derivative tests.
#ifndef ECMO_TESTS_TEST_VECTORS_H_
#define ECMO_TESTS_TEST_VECTORS_H_

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "Eigen/Core"

namespace ecmo {
namespace testing {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

// n standard normal entries from *rng.
inline Eigen::VectorXd Random(int n, std::mt19937_64* rng) {
  std::normal_distribution<double> normal(0.0, 1.0);
  Eigen::VectorXd v(n);
  for (int i = 0; i < n; ++i) v[i] = normal(*rng);
  return v;
}

// ||a - b|| / max(1e-300, ||b||), and the same for scalars.
inline double RelativeError(const Eigen::VectorXd& a,
                            const Eigen::VectorXd& b) {
  return (a - b).norm() / std::max(1e-300, b.norm());
}
inline double RelativeError(double a, double b) {
  return std::abs(a - b) / std::max(1e-300, std::abs(b));
}

}  // namespace testing
}  // namespace ecmo

#endif  // ECMO_TESTS_TEST_VECTORS_H_
