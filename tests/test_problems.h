// Copyright 2026 The ceres-ecmo Authors.
// SPDX-License-Identifier: BSD-3-Clause (see LICENSE).
// Small problems written directly in the tests, independent of the registry.
#ifndef ECMO_TESTS_TEST_PROBLEMS_H_
#define ECMO_TESTS_TEST_PROBLEMS_H_

#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "ceres/autodiff_cost_function.h"
#include "ceres/sized_cost_function.h"
#include "ecmo/problem.h"

namespace ecmo {
namespace testing {

// gebken_circle: f1 = (z1-2)^2 + (z2-1)^2, f2 = (z1-2)^2 + (z2+1)^2,
// h = 1 - z1^2 - z2^2.
struct CircleF {
  explicit CircleF(double c) : c(c) {}
  template <typename T>
  bool operator()(const T* z, T* f) const {
    f[0] = (z[0] - 2.0) * (z[0] - 2.0) + (z[1] - c) * (z[1] - c);
    return true;
  }
  double c;
};
struct CircleH {
  template <typename T>
  bool operator()(const T* z, T* h) const {
    h[0] = 1.0 - z[0] * z[0] - z[1] * z[1];
    return true;
  }
};

// The unit circle the other way round: h = z1^2 + z2^2 - 1.
struct UnitCircle {
  template <typename T>
  bool operator()(const T* z, T* h) const {
    h[0] = z[0] * z[0] + z[1] * z[1] - 1.0;
    return true;
  }
};

// One-dimensional pieces of the bound and inequality tests: f = (x - a)^2
// and c = x - 1 (<= 0 as an inequality).
struct ShiftedSquare {
  explicit ShiftedSquare(double a) : a(a) {}
  template <typename T>
  bool operator()(const T* x, T* f) const {
    f[0] = (x[0] - a) * (x[0] - a);
    return true;
  }
  double a;
};
struct XMinusOne {
  template <typename T>
  bool operator()(const T* x, T* c) const {
    c[0] = x[0] - 1.0;
    return true;
  }
};

inline void BuildGebken(double* z, Problem* problem) {
  problem->AddObjective(
      new ceres::AutoDiffCostFunction<CircleF, 1, 2>(new CircleF(1.0)), {z});
  problem->AddObjective(
      new ceres::AutoDiffCostFunction<CircleF, 1, 2>(new CircleF(-1.0)), {z});
  problem->AddConstraint(
      new ceres::AutoDiffCostFunction<CircleH, 1, 2>(new CircleH), {z});
}

// An objective that returns NaN once z[0] exceeds a threshold.
class NanAbove final : public ceres::SizedCostFunction<1, 2> {
 public:
  explicit NanAbove(double threshold) : threshold_(threshold) {}
  bool Evaluate(double const* const* p, double* r, double** j) const override {
    const double* z = p[0];
    r[0] = z[0] > threshold_ ? std::numeric_limits<double>::quiet_NaN()
                             : 1.0 + z[0] * z[0] + z[1] * z[1];
    if (j != nullptr && j[0] != nullptr) {
      j[0][0] = 2.0 * z[0];
      j[0][1] = 2.0 * z[1];
    }
    return true;
  }

 private:
  double threshold_;
};

// A preference for tests that sweep lambda_1 = l1 over every registry
// problem: S = 2 gives (l1, 1 - l1); S = 3 splits 1 - l1 as 3 : 7 (for
// other S equally). An equal split for S = 3 would land sphere_octant
// exactly on kinks (e.g. l1 = 1/2 gives z = (-1, 0, 0) with two weakly
// active terms: no strict complementarity, and interior-point solvers reach
// such points only to about the square root of their tolerance); 3 : 7
// keeps every l1 in {0.05, 0.1, ..., 0.95} at least 0.1 from a kink.
// n preferences (l, 1 - l), l = i / (n + 1) for i = 1..n.
inline std::vector<std::vector<double>> EvenPreferences(int n) {
  std::vector<std::vector<double>> out;
  for (int i = 1; i <= n; ++i) {
    const double l = static_cast<double>(i) / (n + 1);
    out.push_back({l, 1.0 - l});
  }
  return out;
}

inline std::vector<double> RegistryPreference(double l1, int num_objectives) {
  std::vector<double> lambda(num_objectives, (1.0 - l1) / (num_objectives - 1));
  if (num_objectives == 3) {
    lambda[1] = 0.3 * (1.0 - l1);
    lambda[2] = 0.7 * (1.0 - l1);
  }
  lambda[0] = l1;
  return lambda;
}

}  // namespace testing
}  // namespace ecmo

#endif  // ECMO_TESTS_TEST_PROBLEMS_H_
